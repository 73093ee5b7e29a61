"""A stdio MCP server with one tool, `shout` (the text upper-cased), for the SDK tests: what an SDK
program's `mcpServers` option names besides its in-process servers. Runs on the MCP Python SDK
the Agent SDK installs."""

from mcp.server.mcpserver import MCPServer

server = MCPServer("echo")


@server.tool()
def shout(text: str) -> str:
    """Returns the text in capitals."""
    return text.upper()


if __name__ == "__main__":
    server.run()

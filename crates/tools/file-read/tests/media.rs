//! Read on images and PDFs made in the test: image parts, scaling, the token budget, PDF documents,
//! page images (with poppler's `pdftoppm`) and the `pages` checks.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Cursor;
use std::path::Path;

use agent_tools_core::FileReadingLimits;
use agent_tools_core::ToolUseContext;
use agent_tools_core::{Invocation, call_tool};
use base64::Engine as _;
use image::{DynamicImage, ImageFormat, Rgb, RgbImage, Rgba, RgbaImage};
use serde_json::{Value, json};

async fn call(ctx: &ToolUseContext, input: Value) -> Invocation {
    call_tool(agent_tool_file_read::tool().as_ref(), "toolu_media", input, ctx).await
}

fn encoded(image: &DynamicImage, format: ImageFormat) -> Vec<u8> {
    let mut out = Vec::new();
    image.write_to(&mut Cursor::new(&mut out), format).unwrap();
    out
}

fn noise(width: u32, height: u32) -> DynamicImage {
    let mut seed = 7_u32;
    DynamicImage::ImageRgba8(RgbaImage::from_fn(width, height, |_, _| {
        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        let [a, b, c, _] = seed.to_le_bytes();
        Rgba([a, b, c, 255])
    }))
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn unb64(text: &str) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD.decode(text).unwrap()
}

/// The content blocks of the messages a call added, as JSON.
fn message_blocks(done: &Invocation) -> Vec<Value> {
    done.new_messages
        .iter()
        .flat_map(|message| {
            let value = serde_json::to_value(message).unwrap();
            assert_eq!(value["role"], "user");
            value["content"].as_array().unwrap().clone()
        })
        .collect()
}

#[tokio::test]
async fn an_image_is_one_image_part_decided_by_its_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolUseContext::new(dir.path());
    for (name, format, media_type) in [
        ("shot.txt", ImageFormat::Png, "image/png"),
        ("photo.png", ImageFormat::Jpeg, "image/jpeg"),
        ("anim.gif", ImageFormat::Gif, "image/gif"),
        ("pic.webp", ImageFormat::WebP, "image/webp"),
    ] {
        let image =
            if format == ImageFormat::Jpeg { DynamicImage::ImageRgb8(noise(30, 20).to_rgb8()) } else { noise(30, 20) };
        let bytes = encoded(&image, format);
        std::fs::write(dir.path().join(name), &bytes).unwrap();
        let done = call(&ctx, json!({"file_path": name})).await;
        assert!(!done.block.is_error, "{name}: {:?}", done.block);
        assert_eq!(
            serde_json::to_value(&done.block.content).unwrap(),
            json!([{"type": "image", "source": {"type": "base64", "media_type": media_type, "data": b64(&bytes)}}]),
            "{name}"
        );
        assert!(done.new_messages.is_empty(), "{name}: the size did not change");
        // The structured output leaves the base64 out (it is in the content already).
        assert_eq!(
            done.data.unwrap().to_json(),
            json!({"type": "image", "file": {"type": media_type, "originalSize": bytes.len()}})
        );
    }
    // Images are not recorded for Edit and Write.
    assert!(ctx.read_file_state.is_empty());
}

#[tokio::test]
async fn a_large_image_is_scaled_down_and_the_sizes_are_told() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolUseContext::new(dir.path());
    let wide = DynamicImage::ImageRgb8(RgbImage::from_pixel(2400, 60, Rgb([200, 20, 20])));
    std::fs::write(dir.path().join("wide.png"), encoded(&wide, ImageFormat::Png)).unwrap();
    let done = call(&ctx, json!({"file_path": "wide.png"})).await;
    assert!(!done.block.is_error, "{:?}", done.block);
    let content = serde_json::to_value(&done.block.content).unwrap();
    let sent = image::load_from_memory(&unb64(content[0]["source"]["data"].as_str().unwrap())).unwrap();
    assert_eq!((sent.width(), sent.height()), (2000, 50));
    assert_eq!(
        message_blocks(&done),
        [
            json!({"type": "text", "text": "[Image wide.png was scaled down from 2400x60 to 2000x50 pixels to fit. To map a point of the image you see to the original, multiply its coordinates by 1.20.]"})
        ]
    );
    assert_eq!(
        done.data.unwrap().to_json()["file"]["dimensions"],
        json!({"originalWidth": 2400, "originalHeight": 60, "displayWidth": 2000, "displayHeight": 50})
    );
}

#[tokio::test]
async fn an_image_over_the_token_budget_is_recompressed() {
    let dir = tempfile::tempdir().unwrap();
    let mut ctx = ToolUseContext::new(dir.path());
    ctx.limits.file_reading = FileReadingLimits { max_tokens: Some(4_000), max_size_bytes: None };
    let bytes = encoded(&noise(200, 150), ImageFormat::Png);
    assert!(bytes.len() / 3 * 4 > 32_000, "the PNG must be over the budget");
    std::fs::write(dir.path().join("noise.png"), &bytes).unwrap();
    let done = call(&ctx, json!({"file_path": "noise.png"})).await;
    assert!(!done.block.is_error, "{:?}", done.block);
    let content = serde_json::to_value(&done.block.content).unwrap();
    assert_eq!(content[0]["source"]["media_type"], "image/jpeg");
    // Claude Code's estimate: base64 length × 0.125 tokens, within the 4,000 allowed.
    assert!(content[0]["source"]["data"].as_str().unwrap().len() / 8 <= 4_000);
}

#[tokio::test]
async fn an_empty_image_is_an_error_and_text_named_png_is_text() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolUseContext::new(dir.path());
    std::fs::write(dir.path().join("empty.png"), b"").unwrap();
    let done = call(&ctx, json!({"file_path": "empty.png"})).await;
    assert!(done.block.is_error);
    assert_eq!(done.block.content.text(), "empty.png is empty (0 bytes), so there is nothing to show.");
    std::fs::write(dir.path().join("notes.png"), b"not an image\n").unwrap();
    let done = call(&ctx, json!({"file_path": "notes.png"})).await;
    assert_eq!(done.block.content.text(), "1\tnot an image\n2\t");
    // A broken image is an error that names the file.
    std::fs::write(dir.path().join("broken.png"), b"\x89PNG\r\n\x1a\n\x00\x00garbage").unwrap();
    let done = call(&ctx, json!({"file_path": "broken.png"})).await;
    assert!(done.block.is_error);
    assert!(done.block.content.text().starts_with("Cannot read the image broken.png: "), "{:?}", done.block);
}

/// A PDF of `pages` pages, page N showing `Page N says hello`.
fn pdf_bytes(pages: u32) -> Vec<u8> {
    use lopdf::content::{Content, Operation};
    use lopdf::{Document, Object, Stream, dictionary};
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let font_id = doc.add_object(dictionary! {"Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Courier"});
    let resources_id = doc.add_object(dictionary! {"Font" => dictionary! {"F1" => font_id}});
    let kids: Vec<Object> = (1..=pages)
        .map(|page| {
            let content = Content {
                operations: vec![
                    Operation::new("BT", vec![]),
                    Operation::new("Tf", vec!["F1".into(), 24.into()]),
                    Operation::new("Td", vec![72.into(), 700.into()]),
                    Operation::new("Tj", vec![Object::string_literal(format!("Page {page} says hello"))]),
                    Operation::new("ET", vec![]),
                ],
            };
            let content_id = doc.add_object(Stream::new(dictionary! {}, content.encode().unwrap()));
            doc.add_object(dictionary! {"Type" => "Page", "Parent" => pages_id, "Contents" => content_id}).into()
        })
        .collect();
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages", "Kids" => kids, "Count" => i64::from(pages), "Resources" => resources_id,
            "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
        }),
    );
    let catalog_id = doc.add_object(dictionary! {"Type" => "Catalog", "Pages" => pages_id});
    doc.trailer.set("Root", catalog_id);
    let mut bytes = Vec::new();
    doc.save_to(&mut bytes).unwrap();
    bytes
}

fn put_pdf(dir: &Path, name: &str, pages: u32) -> (String, Vec<u8>) {
    let bytes = pdf_bytes(pages);
    let path = dir.join(name);
    std::fs::write(&path, &bytes).unwrap();
    (path.to_string_lossy().into_owned(), bytes)
}

#[tokio::test]
async fn a_short_pdf_goes_whole_as_a_document() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolUseContext::new(dir.path());
    let (path, bytes) = put_pdf(dir.path(), "paper.bin", 2);
    let done = call(&ctx, json!({"file_path": path})).await;
    assert!(!done.block.is_error, "{:?}", done.block);
    assert_eq!(
        done.block.content.text(),
        format!("PDF file read: {path} ({})", agent_tool_file_read::format_file_size(bytes.len() as u64))
    );
    assert_eq!(
        message_blocks(&done),
        [
            json!({"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": b64(&bytes)}})
        ]
    );
    assert_eq!(
        done.data.unwrap().to_json(),
        json!({"type": "pdf", "file": {"filePath": path, "originalSize": bytes.len(), "pageCount": 2}})
    );
    assert!(ctx.read_file_state.is_empty());
}

#[tokio::test]
async fn a_long_pdf_needs_pages() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolUseContext::new(dir.path());
    let (path, _) = put_pdf(dir.path(), "book.pdf", 11);
    let done = call(&ctx, json!({"file_path": path})).await;
    assert!(done.block.is_error);
    assert_eq!(
        done.block.content.text(),
        "This PDF has 11 pages, too many to read at once (at most 10). Read it in parts with the pages parameter, such as pages: \"1-5\"; each call returns at most 20 pages."
    );
}

#[tokio::test]
async fn bad_page_ranges_are_refused_before_reading() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolUseContext::new(dir.path());
    for (pages, expected) in [
        (
            "0",
            "<tool_use_error>\"0\" is not a page range. Give one page (\"3\"), a range (\"1-5\") or a first page to read to the end (\"3-\"); pages count from 1.</tool_use_error>",
        ),
        (
            "5-2",
            "<tool_use_error>\"5-2\" is not a page range. Give one page (\"3\"), a range (\"1-5\") or a first page to read to the end (\"3-\"); pages count from 1.</tool_use_error>",
        ),
        (
            "1-21",
            "<tool_use_error>The page range \"1-21\" covers more than 20 pages; one Read returns at most 20. Ask for a smaller range.</tool_use_error>",
        ),
    ] {
        // The file does not even exist: the range is checked first.
        let done = call(&ctx, json!({"file_path": "missing.pdf", "pages": pages})).await;
        assert!(done.block.is_error);
        assert_eq!(done.block.content.text(), expected, "{pages}");
    }
    let tool = agent_tool_file_read::tool();
    let parsed = tool.parse(json!({"file_path": "a.pdf", "pages": "x"})).unwrap();
    let verdict = tool.validate_input(&parsed, &ctx).await;
    assert!(matches!(verdict, agent_tools_core::ValidationResult::Error { error_code: 7, .. }), "{verdict:?}");
    let parsed = tool.parse(json!({"file_path": "a.pdf", "pages": "3-30"})).unwrap();
    let verdict = tool.validate_input(&parsed, &ctx).await;
    assert!(matches!(verdict, agent_tools_core::ValidationResult::Error { error_code: 8, .. }), "{verdict:?}");
    // `pages` means nothing for other files: a text file reads as usual.
    std::fs::write(dir.path().join("a.txt"), "hello\n").unwrap();
    let done = call(&ctx, json!({"file_path": "a.txt", "pages": "2"})).await;
    assert_eq!(done.block.content.text(), "1\thello\n2\t");
}

fn has_pdftoppm() -> bool {
    std::process::Command::new("pdftoppm").arg("-v").output().is_ok()
}

#[tokio::test]
async fn pdf_pages_are_rendered_as_images() {
    if !has_pdftoppm() {
        eprintln!("SKIPPED pdf_pages_are_rendered_as_images: pdftoppm (poppler-utils) is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolUseContext::new(dir.path());
    let (path, bytes) = put_pdf(dir.path(), "slides.pdf", 12);
    let done = call(&ctx, json!({"file_path": path, "pages": "10-"})).await;
    assert!(!done.block.is_error, "{:?}", done.block);
    assert_eq!(
        done.block.content.text(),
        format!(
            "PDF pages extracted: 3 page(s) from {path} ({})",
            agent_tool_file_read::format_file_size(bytes.len() as u64)
        )
    );
    let blocks = message_blocks(&done);
    assert_eq!(blocks.len(), 3);
    for block in &blocks {
        assert_eq!(block["type"], "image");
        assert_eq!(block["source"]["media_type"], "image/jpeg");
        let page = image::load_from_memory(&unb64(block["source"]["data"].as_str().unwrap())).unwrap();
        // US Letter at 100 dpi.
        assert_eq!((page.width(), page.height()), (850, 1100));
    }
    assert_eq!(
        done.data.unwrap().to_json(),
        json!({"type": "parts", "file": {"filePath": path, "originalSize": bytes.len(), "count": 3, "firstPage": 10, "lastPage": 12}})
    );
    let done = call(&ctx, json!({"file_path": path, "pages": "4"})).await;
    assert_eq!(message_blocks(&done).len(), 1);
}

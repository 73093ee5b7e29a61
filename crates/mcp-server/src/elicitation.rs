//! Permission questions as MCP elicitation forms, for either protocol era: the permission form
//! (a choice and a reason), AskUserQuestion's questions as one form ([`crate::questions`]), and
//! [`ElicitationPrompter`], which puts them to a 2025-era client as `elicitation/create`
//! requests (the crate's private `rounds` module carries them under 2026-07-28).

use agent_tools_core::BoxFuture;
use agent_tools_host::{PermissionAnswer, PermissionPrompter, PermissionRequest};
use serde_json::Value;

/// Asks an MCP client's user through elicitation (a form with the choice and a reason). A client
/// without elicitation support gets a refusal the model can act on.
pub struct ElicitationPrompter {
    peer: rmcp::service::Peer<rmcp::RoleServer>,
}

impl ElicitationPrompter {
    /// A prompter asking the user of the client at the other end of `peer`.
    pub fn new(peer: rmcp::service::Peer<rmcp::RoleServer>) -> Self {
        Self { peer }
    }
}

/// The answer an MCP client sends back for the [`permission_form`].
#[derive(Debug, serde::Deserialize)]
pub struct PermissionForm {
    /// allow_once, allow_always (for the rest of this session), or deny.
    pub decision: FormDecision,
    /// Why not, if denying (passed on to the model).
    #[serde(default)]
    pub reason: Option<String>,
}

/// The choices of [`PermissionForm`].
#[derive(Debug, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FormDecision {
    /// Run it this once.
    AllowOnce,
    /// Run it and allow such calls for the rest of the session.
    AllowAlways,
    /// Do not run it.
    Deny,
}

/// The form an MCP client shows: a required single choice with readable titles, and an optional
/// reason. Written out rather than derived, because an elicitation schema allows only flat
/// primitive properties (a derived `Option<String>` or documented enum is not one).
pub fn permission_form() -> rmcp::model::ElicitationSchema {
    permission_form_with(true)
}

/// [`permission_form`], without the "allow for the rest of this session" choice when
/// `offer_always` is false (for a call whose session other clients share, where such an answer
/// would reach them too).
pub fn permission_form_with(offer_always: bool) -> rmcp::model::ElicitationSchema {
    use rmcp::model::{ElicitationSchema, EnumSchema, PrimitiveSchemaDefinition, StringSchema};
    let (choices, titles) = if offer_always {
        (
            ["allow_once", "allow_always", "deny"].map(String::from).to_vec(),
            ["Allow once", "Allow for the rest of this session", "Deny"].map(String::from).to_vec(),
        )
    } else {
        (["allow_once", "deny"].map(String::from).to_vec(), ["Allow once", "Deny"].map(String::from).to_vec())
    };
    let decision = match EnumSchema::builder(choices.clone()).enum_titles(titles) {
        Ok(titled) => titled.build(),
        Err(_) => EnumSchema::builder(choices).build(),
    };
    let mut schema = ElicitationSchema::new(
        [
            ("decision".to_owned(), PrimitiveSchemaDefinition::Enum(decision)),
            (
                "reason".to_owned(),
                PrimitiveSchemaDefinition::String(
                    StringSchema::new().description("If denying: what to do instead (the model reads this)."),
                ),
            ),
        ]
        .into(),
    );
    schema = schema.with_required(vec!["decision".to_owned()]);
    schema
}

/// Where a question form goes: an `elicitation/create` request to the client (the 2025
/// protocol), or the result of the request that asked (2026-07-28's rounds, `serve::rounds`).
pub trait FormAsker: Send + Sync {
    /// Shows `params` to the client's user; the reply, or why there is none.
    fn elicit(
        &self,
        params: rmcp::model::ElicitRequestParams,
    ) -> BoxFuture<'_, Result<rmcp::model::ElicitResult, String>>;
}

impl FormAsker for rmcp::service::Peer<rmcp::RoleServer> {
    fn elicit(
        &self,
        params: rmcp::model::ElicitRequestParams,
    ) -> BoxFuture<'_, Result<rmcp::model::ElicitResult, String>> {
        Box::pin(async move { self.create_elicitation(params).await.map_err(|err| err.to_string()) })
    }
}

/// Asks `request` as a form through `asker`, whichever protocol carries it: AskUserQuestion's
/// questions as one form ([`crate::questions::questions_form`]), anything else as the
/// permission form ([`permission_form`]).
///
/// Questions: accepted with every question answered gives the answers as the updated input;
/// declined, cancelled or left partly unanswered is the user's "no". Permission: the chosen
/// decision (an unreadable answer is a "no"). A form the client could not show means nobody
/// could be asked.
pub async fn ask_through_forms(asker: &dyn FormAsker, request: &PermissionRequest) -> PermissionAnswer {
    ask_through_forms_with(asker, request, true).await
}

/// [`ask_through_forms`]; with `offer_always` false the permission form has no "allow for the
/// rest of this session" choice, and such an answer counts as "allow once".
pub async fn ask_through_forms_with(
    asker: &dyn FormAsker,
    request: &PermissionRequest,
    offer_always: bool,
) -> PermissionAnswer {
    use rmcp::model::{ElicitRequestParams, ElicitationAction};
    if let Some(questions) = request.questions() {
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: crate::questions::questions_message(questions),
            requested_schema: crate::questions::questions_form(questions),
        };
        let form = match asker.elicit(params).await {
            Ok(result) if result.action == ElicitationAction::Accept => result.content,
            Ok(_) => return PermissionAnswer::Deny { feedback: None },
            Err(err) => {
                tracing::warn!("the questions could not be asked: {err}");
                return PermissionAnswer::Unavailable {
                    why: format!("the MCP client did not show the questions: {err}"),
                };
            }
        };
        let form = match form {
            Some(Value::Object(form)) => form,
            _ => serde_json::Map::new(),
        };
        return match crate::questions::answers_from_form(questions, &form) {
            Ok(answers) => {
                PermissionAnswer::AllowWithInput { input: agent_tools_core::with_answers(&request.input, &answers) }
            }
            Err(missing) => {
                PermissionAnswer::Deny { feedback: Some(format!("I did not answer: {}", missing.join("; "))) }
            }
        };
    }
    let mut message = format!(
        "{} wants to run: {}\nInput: {}\nWhy it needs approval: {}",
        request.tool_label(),
        request.summary,
        request.input_preview(),
        request.message
    );
    if let Some(caution) = request.caution() {
        message.push_str("\nNote: ");
        message.push_str(caution);
    }
    let params = ElicitRequestParams::FormElicitationParams {
        meta: None,
        message,
        requested_schema: permission_form_with(offer_always),
    };
    let answer = match asker.elicit(params).await {
        Ok(result) if result.action == ElicitationAction::Accept => result.content,
        Ok(_) => None,
        Err(err) => {
            tracing::warn!("the permission question could not be asked: {err}");
            return PermissionAnswer::Unavailable {
                why: format!("the MCP client did not show the permission question: {err}"),
            };
        }
    };
    match answer.map(serde_json::from_value::<PermissionForm>) {
        Some(Ok(PermissionForm { decision: FormDecision::AllowOnce, .. })) => PermissionAnswer::AllowOnce,
        Some(Ok(PermissionForm { decision: FormDecision::AllowAlways, .. })) if offer_always => {
            PermissionAnswer::AllowAlways
        }
        Some(Ok(PermissionForm { decision: FormDecision::AllowAlways, .. })) => PermissionAnswer::AllowOnce,
        Some(Ok(PermissionForm { decision: FormDecision::Deny, reason })) => {
            PermissionAnswer::Deny { feedback: reason }
        }
        Some(Err(err)) => {
            tracing::warn!("the permission answer was not understood: {err}");
            PermissionAnswer::Deny { feedback: None }
        }
        None => PermissionAnswer::Deny { feedback: None },
    }
}

impl PermissionPrompter for ElicitationPrompter {
    fn ask<'a>(&'a self, request: &'a PermissionRequest) -> BoxFuture<'a, PermissionAnswer> {
        Box::pin(async move {
            use rmcp::service::ElicitationMode;
            if !self.peer.supported_elicitation_modes().contains(&ElicitationMode::Form) {
                let why = if request.questions().is_some() {
                    "this MCP client cannot show questions to its user (it does not support elicitation), and \
                     only a person can answer them; decide without the user's answers"
                } else {
                    "this MCP client cannot show permission questions; the server's --permission-mode or \
                     --allowed-tools rules must allow such calls"
                };
                return PermissionAnswer::Unavailable { why: why.into() };
            }
            ask_through_forms(&self.peer, request).await
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_permission_form_is_a_flat_schema_with_a_required_titled_choice() {
        let schema = serde_json::to_value(permission_form()).unwrap();
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["required"], serde_json::json!(["decision"]));
        let choices: Vec<&str> = schema["properties"]["decision"]["oneOf"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|c| c["const"].as_str())
            .collect();
        assert_eq!(choices, ["allow_once", "allow_always", "deny"]);
        assert_eq!(schema["properties"]["reason"]["type"], "string");
        // What a client sends back parses into the answer.
        let answer: PermissionForm =
            serde_json::from_value(serde_json::json!({"decision": "deny", "reason": "no"})).unwrap();
        assert!(matches!(answer, PermissionForm { decision: FormDecision::Deny, reason: Some(ref r) } if r == "no"));
    }
}

//! The scripted model: what an agent row talks to instead of its vendor (docs/adapters.md,
//! "Agent rows").
//!
//! A coding agent hands an MCP tool's result to a language model, and what the model is told
//! decides what happens next. To see it, the harness points the agent at this server on
//! 127.0.0.1: it speaks the model APIs agents use ([`api::Api`]: Anthropic Messages, OpenAI
//! Responses and Chat Completions, Gemini), streaming or not, answers each conversation turn as
//! its driver says (call the case's tool with these arguments, or end with a short text), and
//! keeps every request whole. [`told`] reads the tool result the agent built out of the next
//! request and judges it against what the MCP server sent.
//!
//! Bounds: a request body up to 16 MiB (the wire reader's), at most [`server::MAX_REQUESTS`]
//! requests kept per agent run and [`server::MAX_KEPT_BYTES`] bytes in all; a turn waits for
//! its driver at most [`server::MAX_TURN_WAIT`].

pub mod api;
pub mod server;
pub mod told;

pub use api::Api;
pub use server::{ModelRequest, ModelServer, Say, Turn};
pub use told::{ModelFacts, Told};

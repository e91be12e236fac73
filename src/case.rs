//! Case files (cases/README.md): the model, discovery, loading and validation.

mod auth;
pub mod http;
mod load;
pub mod model;
mod problem;
mod reply;
mod stdio;
mod tasks;
mod validate;

pub use auth::{
    AsMetadata, Auth, ClientKind, Credentials, Issuer, Prm, StartToken, TokenAnswer, TokenReply,
};
pub use load::{Case, CaseSource, DiscoverError, LoadError, builtin, discover};
pub use model::{
    Annotations, Call, CaseFile, Expect, Grade, Target, TaskCall, TaskSupport, Tool, WirePart,
};
pub(crate) use problem::MAX_DURATION_MS;
pub use reply::{End, Event, MAX_REPEAT, Reply};
pub use stdio::{
    Line, MAX_LINE_BYTES, MAX_SPLIT, MAX_STDERR_BYTES, PAD_PLACEHOLDER, Signal, StdioEnd,
    StdioReply, Transport,
};
pub(crate) use validate::header_problem;

#[cfg(test)]
mod tests;

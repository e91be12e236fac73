//! Case files (cases/README.md): the model, discovery, loading and validation.

pub mod http;
mod load;
pub mod model;
mod problem;
mod stdio;
mod tasks;
mod validate;

pub use load::{Case, CaseSource, DiscoverError, LoadError, builtin, discover};
pub use model::{
    Annotations, Call, CaseFile, End, Event, Expect, Grade, Reply, Target, TaskCall, TaskSupport,
    Tool, WirePart,
};
pub(crate) use problem::MAX_DURATION_MS;
pub use stdio::{
    Line, MAX_LINE_BYTES, MAX_SPLIT, MAX_STDERR_BYTES, PAD_PLACEHOLDER, Signal, StdioEnd,
    StdioReply, Transport,
};
pub(crate) use validate::header_problem;

#[cfg(test)]
mod tests;

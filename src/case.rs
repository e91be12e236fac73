//! Case files (cases/README.md): the model, discovery, loading and validation.

pub mod http;
mod load;
pub mod model;
mod tasks;
mod validate;

pub use load::{Case, CaseSource, DiscoverError, LoadError, builtin, discover};
pub use model::{
    Annotations, Call, CaseFile, End, Event, Expect, Grade, Reply, Target, TaskCall, TaskSupport,
    Tool, WirePart,
};
pub(crate) use validate::{MAX_DURATION_MS, header_problem};

#[cfg(test)]
mod tests;

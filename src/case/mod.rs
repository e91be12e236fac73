//! Case files: the model, loading and validation.
pub mod model;

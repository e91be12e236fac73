pub mod adapter;
pub mod case;
pub mod classify;
pub mod observation;
pub mod outcome;
pub mod wire;

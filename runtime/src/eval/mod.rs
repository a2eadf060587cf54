//! The tree-walking interpreter.

use crate::registry::Registry;

pub struct Interpreter {
    pub registry: Registry,
}

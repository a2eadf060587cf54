//! Typed kernels.

//! reductio: memory-leak analysis by contradiction for C.

//! Agent definitions (being written).

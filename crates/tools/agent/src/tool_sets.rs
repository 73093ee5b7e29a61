//! Sub-agent tool sets (being written).

//! Booleanizers: game positions to bit vectors (with feature names) for learning.

//! The Tsetlin Machine (no game dependencies).

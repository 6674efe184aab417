//! GTP-style text protocols: line parsing, response framing, command registries and the
//! engine loop shared by HTP (Hex) and the checkers board-string protocol.

pub mod clock;
pub mod line;
pub mod registry;
pub mod response;
pub mod session;

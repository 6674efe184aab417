//! English checkers (American checkers, English draughts): rules, notation, records.

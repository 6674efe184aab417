//! Counts of games in words, for the reports: "1 game", "2 games".

/// `n` followed by "game" or "games", as `n` asks.
pub fn games(n: u64) -> String {
    format!("{n} {}", game_word(n))
}

/// "game" for one, "games" for any other count.
pub fn game_word(n: u64) -> &'static str {
    if n == 1 {
        "game"
    } else {
        "games"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_game_and_many_games() {
        assert_eq!(games(0), "0 games");
        assert_eq!(games(1), "1 game");
        assert_eq!(games(2), "2 games");
    }
}

//! Hex search knowledge: playouts traced from the filled board (for RAVE), uniform or keeping
//! bridges, and the special patterns of seed 004 for MCTS: never play an inferior cell (a
//! dead cell or a captured pair, [`crate::game::hex::inferior`]); under
//! [`TreePatterns::Dominated`], also leave out a vulnerable cell that a killer among the moves
//! dominates; under [`TreePatterns::Forced`], answer an intrusion into one of our bridges at
//! once.

use super::dfpn::{self, Dfpn, Status};
use super::{Limits, NodeKnowledge, RootKnowledge, SearchGame, TreePatterns};
use crate::game::hex::inferior::analyse;
use crate::game::hex::move_patterns::MovePatterns;
use crate::game::hex::playout::bridge_playout;
use crate::game::hex::vc::ones;
use crate::game::hex::{CellSet, Hex, HexMove, SwapRule};
use crate::game::{Color, Game, Outcome, Reason};
use crate::rng::Rng;
use rand::Rng as _;

/// Positions the root solver's table keeps (it is made anew for every move).
const SOLVER_TABLE_ENTRIES: usize = 1 << 16;

/// The cells that restore one of `color`'s bridges broken by a stone on `intruded`: for two
/// `color` stones that are both next to `intruded` and share exactly one other empty common
/// neighbour, that neighbour.
fn bridge_replies(game: &Hex, color: Color, intruded: usize) -> Vec<HexMove> {
    let ours: Vec<usize> = game
        .neighbour_cells(intruded)
        .filter(|&n| game.stone(n) == Some(color))
        .collect();
    let mut replies = Vec::new();
    for (i, &a) in ours.iter().enumerate() {
        let a_around: Vec<usize> = game.neighbour_cells(a).collect();
        for &b in &ours[i + 1..] {
            if a_around.contains(&b) {
                continue;
            }
            let common: Vec<usize> = game
                .neighbour_cells(b)
                .filter(|n| a_around.contains(n))
                .collect();
            if common.len() == 2 {
                let other = if common[0] == intruded {
                    common[1]
                } else {
                    common[0]
                };
                let reply = HexMove::Cell(other as u16);
                if game.stone(other).is_none() && !replies.contains(&reply) {
                    replies.push(reply);
                }
            }
        }
    }
    replies
}

/// Runs a playout that fills the board (`fill` gives the winner and Black's final stones)
/// and traces every cell it filled with that cell's colour.
fn filled_playout(
    game: &Hex,
    max_plies: usize,
    trace: &mut Vec<(Color, HexMove)>,
    fill: impl FnOnce(&Hex) -> (Color, CellSet),
) -> Option<Outcome> {
    trace.clear();
    if let Some(outcome) = game.outcome() {
        return Some(outcome);
    }
    if max_plies == 0 {
        return None;
    }
    let (winner, black) = fill(game);
    trace.extend(
        (0..game.cell_count())
            .filter(|&c| game.stone(c).is_none())
            .map(|c| {
                let color = if black.contains(c) {
                    Color::Black
                } else {
                    Color::White
                };
                (color, HexMove::Cell(c as u16))
            }),
    );
    Some(Outcome::win(winner, Reason::Connection))
}

impl SearchGame for Hex {
    /// A random empty cell picked from the bitset without listing the moves; the same draw
    /// and the same move as the listed default. With swap moves open, the default.
    fn random_move(&self, rng: &mut Rng, scratch: &mut Vec<HexMove>) -> Option<HexMove> {
        if self.swap_rule() != SwapRule::Off {
            self.legal_moves(scratch);
            return (!scratch.is_empty()).then(|| scratch[rng.random_range(0..scratch.len())]);
        }
        if self.outcome().is_some() {
            return None;
        }
        let empty = self.board().empty_cells();
        let count = empty.len();
        (count > 0).then(|| {
            let k = rng.random_range(0..count);
            HexMove::Cell(empty.nth(k).expect("k is below the count") as u16)
        })
    }

    /// The filled board gives the trace: every cell empty before the playout, with the
    /// colour that filled it.
    fn traced_playout(
        &self,
        rng: &mut Rng,
        max_plies: usize,
        trace: &mut Vec<(Color, HexMove)>,
    ) -> Option<Outcome> {
        filled_playout(self, max_plies, trace, |game| game.fill_playout(rng))
    }

    /// The bridge-keeping playout ([`bridge_playout`]; weighted: with the move patterns'
    /// local weights), traced from the filled board.
    fn pattern_playout(
        &self,
        rng: &mut Rng,
        max_plies: usize,
        trace: &mut Vec<(Color, HexMove)>,
        weighted: bool,
    ) -> Option<Outcome> {
        filled_playout(self, max_plies, trace, |game| {
            bridge_playout(game, rng, weighted)
        })
    }

    /// Cells are numbered by their index; the swap and resignation have no number.
    fn move_slots(&self) -> usize {
        self.cell_count()
    }

    fn move_slot(&self, mv: HexMove) -> Option<usize> {
        match mv {
            HexMove::Cell(cell) => Some(usize::from(cell)),
            _ => None,
        }
    }

    /// The built-in move patterns' chances ([`MovePatterns::built_in`]); none while the
    /// swap is open.
    fn move_priors(&self, moves: &[HexMove], out: &mut Vec<f64>) -> bool {
        let cells: Option<Vec<usize>> = moves
            .iter()
            .map(|mv| match mv {
                HexMove::Cell(c) => Some(usize::from(*c)),
                _ => None,
            })
            .collect();
        match cells {
            Some(cells) if !cells.is_empty() => {
                MovePatterns::built_in().probabilities(self, &cells, out);
                true
            }
            _ => false,
        }
    }

    /// A DFPN solve of the root with at most `expansions` nodes (boards of up to 128 cells;
    /// not while the swap is open, which the solver does not see).
    fn root_knowledge(&self, expansions: u64, limits: &Limits) -> RootKnowledge<HexMove> {
        let mut legal = Vec::new();
        self.legal_moves(&mut legal);
        if expansions == 0
            || self.swap_open()
            || Dfpn::check_board(self).is_err()
            || legal.is_empty()
        {
            return RootKnowledge::default();
        }
        let mut solver = Dfpn::new(SOLVER_TABLE_ENTRIES);
        let proof = solver.solve(
            self,
            &Limits {
                nodes: Some(expansions),
                ..limits.clone()
            },
        );
        let me = self.side_to_move();
        if proof.winner == Some(me) {
            return RootKnowledge {
                winning: proof.winning_move.map(|c| HexMove::Cell(c as u16)),
                candidates: None,
            };
        }
        let surviving = solver.surviving_moves(self);
        RootKnowledge {
            winning: None,
            candidates: (!surviving.is_empty() && surviving.len() < legal.len()).then(|| {
                surviving
                    .into_iter()
                    .map(|c| HexMove::Cell(c as u16))
                    .collect()
            }),
        }
    }

    /// H-search for both colours ([`dfpn::classify`]): a connection or a winning key proves
    /// the position, the must-play region names the only moves that do not lose (boards of
    /// up to 128 cells; nothing while the swap is open, which H-search does not see).
    fn node_knowledge(&self) -> Option<NodeKnowledge<HexMove>> {
        if Dfpn::check_board(self).is_err() || self.swap_open() {
            return None;
        }
        Some(match dfpn::classify(self) {
            Status::Won(_) => NodeKnowledge::Won,
            Status::Lost => NodeKnowledge::Lost,
            Status::MustPlay(region) => {
                NodeKnowledge::MustPlay(ones(region).map(|c| HexMove::Cell(c as u16)).collect())
            }
        })
    }

    /// Stones on the board, and half the cells: games between programs of some strength
    /// end with about half the board filled (9x9 games against MoHex 2.0 last 40 plies on
    /// average).
    fn game_length(&self) -> Option<(usize, usize)> {
        let cells = self.width() * self.height();
        Some((cells - self.board().empty_cells().len(), cells / 2))
    }

    fn candidate_moves(&self, moves: &mut Vec<HexMove>, patterns: TreePatterns) {
        self.legal_moves(moves);
        if patterns == TreePatterns::Off || moves.is_empty() {
            return;
        }
        let me = self.side_to_move();
        if let Some((mover, HexMove::Cell(last))) = self.last_move() {
            if mover != me && patterns == TreePatterns::Forced {
                let replies = bridge_replies(self, me, last as usize);
                if !replies.is_empty() {
                    *moves = replies;
                    return;
                }
            }
        }
        let inferior = analyse(self);
        // The cells left to play: the moves' cells but the inferior ones.
        let mut live = vec![false; self.cell_count()];
        for mv in moves.iter() {
            if let HexMove::Cell(c) = mv {
                live[*c as usize] = true;
            }
        }
        for cell in inferior.cells() {
            live[cell] = false;
        }
        let kept = |live: &[bool], mv: &HexMove| match mv {
            HexMove::Cell(c) => live[*c as usize],
            _ => true,
        };
        if !moves.iter().any(|mv| kept(&live, mv)) {
            return;
        }
        if patterns == TreePatterns::Dominated {
            // Each dominated cell's killer stays among the moves, so none empties the list.
            for cell in inferior.dominated(self, |c| live[c]) {
                live[cell] = false;
            }
        }
        moves.retain(|mv| kept(&live, mv));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::game::hex::inferior::is_dead;
    use crate::game::hex::played as game;

    fn names(game: &Hex, moves: &[HexMove]) -> Vec<String> {
        moves.iter().map(|&m| game.move_to_text(m)).collect()
    }

    #[test]
    fn an_intruded_bridge_is_answered() {
        // Black c2 and d3 form a bridge over c3 and d2 ((1,1) apart: common neighbours
        // (x+1,y) and (x,y+1)). White intrudes at d2; Black's only candidate is c3.
        let g = game(5, &["c2", "a5", "d3", "d2"]);
        let mut moves = Vec::new();
        g.candidate_moves(&mut moves, TreePatterns::Forced);
        assert_eq!(names(&g, &moves), vec!["c3"]);
        g.candidate_moves(&mut moves, TreePatterns::Off);
        assert_eq!(moves.len(), 25 - 4);
        // Pruning alone leaves the intrusion unanswered: c3 is one move among others.
        g.candidate_moves(&mut moves, TreePatterns::Prune);
        assert!(moves.len() > 1 && names(&g, &moves).contains(&"c3".to_string()));
    }

    #[test]
    fn a_forced_bridge_reply_can_lose_where_pruning_keeps_the_win() {
        // A 9x9 game against MoHex 2.0: White's b5 intrudes into Black's bridge b4-c5
        // (over b5 and c4). Black wins (d5 wins), but the bridge's reply c4 loses: White
        // then wins with b6. A tree that answers the intrusion at once never sees d5.
        let moves = [
            "h3", "h2", "g3", "g2", "e3", "c7", "d7", "e5", "f3", "f6", "g6", "g5", "i4", "h5",
            "i5", "h6", "i6", "h8", "h7", "g8", "g7", "f8", "f7", "e8", "b8", "f1", "d2", "d3",
            "b4", "c3", "b3", "b2", "c2", "e7", "c5", "c6", "a7", "b5",
        ];
        let g = game(9, &moves);
        let unlimited = Limits::default();
        let winner = |position: &Hex| Dfpn::default().solve(position, &unlimited).winner;
        assert_eq!(winner(&g), Some(Color::Black));
        let mut forced = Vec::new();
        g.candidate_moves(&mut forced, TreePatterns::Forced);
        assert_eq!(names(&g, &forced), vec!["c4"]);
        let mut after = g.clone();
        after.play(forced[0]);
        assert_eq!(winner(&after), Some(Color::White));
        let mut pruned = Vec::new();
        g.candidate_moves(&mut pruned, TreePatterns::Prune);
        let d5 = g.parse_move("d5").unwrap();
        assert!(
            pruned.contains(&d5) && pruned.len() > 1,
            "{:?}",
            names(&g, &pruned)
        );
        let mut won = g.clone();
        won.play(d5);
        assert_eq!(winner(&won), Some(Color::Black));
    }

    #[test]
    fn the_root_solver_finds_the_win_and_the_must_play_region() {
        let unlimited = Limits::default();
        // Black b2 and White c1 on 3x3, Black to move: Black wins, and the move the solver
        // names is a win.
        let won = game(3, &["b2", "c1"]);
        let knowledge = won.root_knowledge(1000, &unlimited);
        let mv = knowledge.winning.expect("Black to move wins");
        let mut after = won.clone();
        after.play(mv);
        assert_eq!(
            Dfpn::default().solve(&after, &unlimited).winner,
            Some(Color::Black)
        );
        // White to move on 4x4 after Black's a4, a winning first move: every White move
        // loses, so nothing is restricted and nothing is won.
        let lost = game(4, &["a4"]);
        assert_eq!(
            lost.root_knowledge(100_000, &unlimited),
            RootKnowledge::default()
        );
        // White to move on 4x4 after Black's a1, a losing first move: the moves that keep
        // White's win are a subset of the legal moves, each one a real win.
        let open = game(4, &["a1"]);
        let knowledge = open.root_knowledge(100_000, &unlimited);
        let winning = knowledge.winning.expect("White wins");
        let mut after = open.clone();
        after.play(winning);
        assert_eq!(
            Dfpn::default().solve(&after, &unlimited).winner,
            Some(Color::White)
        );
        // With too few nodes to prove anything, only moves proven to lose are left out.
        let start = game(7, &["d4"]);
        let partial = start.root_knowledge(5, &unlimited);
        assert_eq!(partial.winning, None);
        if let Some(candidates) = partial.candidates {
            assert!(!candidates.is_empty() && candidates.len() < 48);
        }
        // Off, or while the swap is open, the solver is not asked.
        assert_eq!(
            start.root_knowledge(0, &unlimited),
            RootKnowledge::default()
        );
        let mut swap = Hex::new(5, 5).unwrap().with_swap(SwapRule::Benzene);
        swap.try_play("a1").unwrap();
        assert_eq!(
            swap.root_knowledge(1000, &unlimited),
            RootKnowledge::default()
        );
    }

    #[test]
    fn an_mcts_with_the_solver_takes_the_proven_win() {
        use crate::player::Player;
        use crate::rng::seeded;
        // Black to move on 5x5 with b2-c3-d4 bridged and both edge templates open but the
        // c3-d4 bridge intruded at d3: c4 restores the chain and wins.
        let position = game(5, &["b2", "a5", "c3", "e1", "d4", "d3"]);
        let mut player = Player::<Hex>::from_spec("mcts:playouts=20,solver=2000").unwrap();
        let mv = player
            .choose(&position, &Limits::default(), &mut seeded(1))
            .unwrap();
        assert_eq!(position.move_to_text(mv), "c4");
    }

    #[test]
    fn knowledge_at_nodes_proves_a_winning_move() {
        use crate::player::Player;
        use crate::rng::seeded;
        use crate::search::mcts::{Mcts, MctsConfig};
        // The position above, without the root solver: once a winning move's node has its
        // second visit, H-search finds White (to move there) lost, so the move is proven to
        // win and played, valued 1, before the simulations run out.
        let position = game(5, &["b2", "a5", "c3", "e1", "d4", "d3"]);
        let black_wins_after = |mv: HexMove| {
            let mut after = position.clone();
            after.play(mv);
            Dfpn::default().solve(&after, &Limits::default()).winner == Some(Color::Black)
        };
        let limits = Limits {
            playouts: Some(2_000),
            ..Limits::default()
        };
        for seed in 1..4 {
            let mut mcts = Mcts::new(MctsConfig {
                knowledge: 2,
                ..MctsConfig::default()
            });
            let report = mcts.search(&position, &limits, &mut seeded(seed));
            assert!(black_wins_after(report.best.unwrap()), "seed {seed}");
            assert_eq!(report.value, Some(1.0), "seed {seed}");
            assert!(
                report.simulations < 2_000,
                "seed {seed}: the proof ends the search"
            );
        }
        // The player's spec reads the option.
        let mut player = Player::<Hex>::from_spec("mcts:playouts=500,knowledge=2").unwrap();
        let mv = player
            .choose(&position, &Limits::default(), &mut seeded(5))
            .unwrap();
        assert!(black_wins_after(mv));
        assert!(Player::<Hex>::from_spec("mcts:knowledge=-1").is_err());
    }

    #[test]
    fn rave_with_bridge_playouts_finds_the_chain_restoring_move() {
        use crate::player::Player;
        use crate::rng::seeded;
        // The position above without the solver: only c4 keeps Black's chain of bridges and
        // edge templates, after which every bridge-keeping playout is Black's.
        let position = game(5, &["b2", "a5", "c3", "e1", "d4", "d3"]);
        for seed in 1..4 {
            let mut player =
                Player::<Hex>::from_spec("mcts:playouts=3000,rave=1000,c=0,playout=patterns")
                    .unwrap();
            let mv = player
                .choose(&position, &Limits::default(), &mut seeded(seed))
                .unwrap();
            assert_eq!(position.move_to_text(mv), "c4", "seed {seed}");
        }
    }

    #[test]
    fn progressive_bias_first_tries_the_move_the_patterns_like_best() {
        use crate::player::Player;
        use crate::rng::seeded;
        // After the root's expansion the first simulation goes to the child of highest
        // chance: with one simulation it is the move played, whatever the seed. Without the
        // bias the first child is the first of a shuffle, which varies with the seed.
        let position = game(9, &["e5", "d6", "f3"]);
        let mut moves = Vec::new();
        position.candidate_moves(&mut moves, TreePatterns::Forced);
        let mut chances = Vec::new();
        assert!(position.move_priors(&moves, &mut chances));
        assert!((chances.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        let top = (0..moves.len())
            .max_by(|&a, &b| chances[a].total_cmp(&chances[b]))
            .unwrap();
        let mut firsts = std::collections::HashSet::new();
        for seed in 1..6 {
            let choose = |spec: &str| {
                Player::<Hex>::from_spec(spec)
                    .unwrap()
                    .choose(&position, &Limits::default(), &mut seeded(seed))
                    .unwrap()
            };
            assert_eq!(choose("mcts:playouts=1,patterns=on,bias=1"), moves[top]);
            firsts.insert(choose("mcts:playouts=1,patterns=on"));
        }
        assert!(firsts.len() > 1);
        // No priors while the swap is open.
        let mut swap = Hex::new(5, 5).unwrap().with_swap(SwapRule::Benzene);
        swap.try_play("a1").unwrap();
        swap.legal_moves(&mut moves);
        assert!(!swap.move_priors(&moves, &mut chances));
    }

    #[test]
    fn inferior_cells_are_left_out() {
        // White stones around b2 on four consecutive sides: c2, c1, b1, a2.
        let g = game(5, &["e5", "c2", "e4", "c1", "e3", "b1", "d5", "a2"]);
        assert!(is_dead(&g, g.cell(1, 1)));
        let mut moves = Vec::new();
        g.candidate_moves(&mut moves, TreePatterns::Prune);
        assert!(!names(&g, &moves).contains(&"b2".to_string()));
        // Black b2's bridge to the top edge (b1, c1) is a captured pair: White's move.
        let g = game(5, &["b2", "e5", "d3"]);
        g.candidate_moves(&mut moves, TreePatterns::Prune);
        let names = names(&g, &moves);
        assert!(!names.contains(&"b1".to_string()) && !names.contains(&"c1".to_string()));
        assert!(names.contains(&"c3".to_string()), "{names:?}");
    }

    #[test]
    fn traced_playout_fills_every_empty_cell() {
        let g = game(5, &["c3", "b2"]);
        let mut trace = Vec::new();
        let outcome = g.traced_playout(&mut crate::rng::seeded(1), 1000, &mut trace);
        assert!(outcome.is_some());
        assert_eq!(trace.len(), 23);
        let blacks = trace.iter().filter(|(c, _)| *c == Color::Black).count();
        // Black, to move, gets ceil(23 / 2) of the empty cells.
        assert_eq!(blacks, 12);
    }

    #[test]
    fn the_fast_random_move_draws_as_the_listed_default() {
        let mut rng = crate::rng::seeded(4);
        for size in [1, 5, 11, 13] {
            let mut game = Hex::new(size, size).unwrap();
            let mut scratch = Vec::new();
            while game.outcome().is_none() {
                let (mut a, mut b) = (rng.clone(), rng.clone());
                let fast = game.random_move(&mut a, &mut scratch);
                game.legal_moves(&mut scratch);
                let listed = scratch[b.random_range(0..scratch.len())];
                assert_eq!(fast, Some(listed));
                game.play(listed);
                rng = a;
            }
            assert_eq!(game.random_move(&mut rng, &mut scratch), None);
        }
    }
}

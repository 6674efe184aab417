//! Hex rules against independent oracles: a plain breadth-first search decides the winner
//! of random positions, and the board symmetries must preserve (or swap) it.

use rand::Rng as _;
use std::collections::VecDeque;
use tmbot::game::hex::geometry::neighbours;
use tmbot::game::hex::Hex;
use tmbot::game::{Color, Game};
use tmbot::rng::{self, Rng};

/// A position as a plain grid: `grid[y][x]`.
type Grid = Vec<Vec<Option<Color>>>;

/// Whether `color` joins its edges on `grid`, by breadth-first search over cells.
fn bfs_connects(grid: &Grid, color: Color) -> bool {
    let (h, w) = (grid.len(), grid[0].len());
    let mut seen = vec![vec![false; w]; h];
    let mut queue = VecDeque::new();
    let starts: Vec<(usize, usize)> = match color {
        Color::Black => (0..w).map(|x| (x, 0)).collect(),
        Color::White => (0..h).map(|y| (0, y)).collect(),
    };
    for (x, y) in starts {
        if grid[y][x] == Some(color) {
            seen[y][x] = true;
            queue.push_back((x, y));
        }
    }
    while let Some((x, y)) = queue.pop_front() {
        let at_goal = match color {
            Color::Black => y + 1 == h,
            Color::White => x + 1 == w,
        };
        if at_goal {
            return true;
        }
        for (nx, ny) in neighbours(x, y, w, h) {
            if !seen[ny][nx] && grid[ny][nx] == Some(color) {
                seen[ny][nx] = true;
                queue.push_back((nx, ny));
            }
        }
    }
    false
}

fn bfs_winner(grid: &Grid) -> Option<Color> {
    Color::BOTH.into_iter().find(|&c| bfs_connects(grid, c))
}

fn grid_of(game: &Hex) -> Grid {
    (0..game.height())
        .map(|y| {
            (0..game.width())
                .map(|x| game.stone(game.cell(x, y)))
                .collect()
        })
        .collect()
}

/// A random sequence of (cell (x, y), colour) on a `w` x `h` board with a random density.
fn random_stones(rng: &mut Rng, w: usize, h: usize) -> Vec<((usize, usize), Color)> {
    let mut cells: Vec<(usize, usize)> = (0..h).flat_map(|y| (0..w).map(move |x| (x, y))).collect();
    for i in (1..cells.len()).rev() {
        cells.swap(i, rng.random_range(0..=i));
    }
    let keep = rng.random_range(0..=cells.len());
    let black_share = rng.random_range(0.2..0.8);
    cells
        .into_iter()
        .take(keep)
        .map(|cell| {
            let color = if rng.random_bool(black_share) {
                Color::Black
            } else {
                Color::White
            };
            (cell, color)
        })
        .collect()
}

/// Places the stones in order with `Hex::place` until one is refused because the game is
/// over; returns the game.
fn place_all(w: usize, h: usize, stones: &[((usize, usize), Color)]) -> Hex {
    let mut game = Hex::new(w, h).unwrap();
    for &((x, y), color) in stones {
        let cell = game.cell(x, y);
        if game.place(color, cell).is_err() {
            assert!(game.outcome().is_some(), "place refused before the end");
            break;
        }
    }
    game
}

#[test]
fn union_find_winner_matches_bfs_on_100k_random_positions() {
    let mut rng = rng::seeded(2024);
    let mut decided = 0;
    for _ in 0..100_000 {
        let (w, h) = (rng.random_range(1..=19), rng.random_range(1..=19));
        let stones = random_stones(&mut rng, w, h);
        let game = place_all(w, h, &stones);
        let grid = grid_of(&game);
        let truth = bfs_winner(&grid);
        assert_eq!(game.winner(), truth, "{w}x{h} {}", game.position_text());
        for color in Color::BOTH {
            assert_eq!(game.board().connects(color), bfs_connects(&grid, color));
            assert_eq!(game.has_lost(color), bfs_connects(&grid, color.opponent()));
        }
        decided += truth.is_some() as u32;
    }
    assert!(decided > 20_000 && decided < 90_000, "{decided} decided");
}

#[test]
fn the_winner_is_found_as_soon_as_it_connects() {
    let mut rng = rng::seeded(7);
    for _ in 0..2_000 {
        let (w, h) = (rng.random_range(1..=9), rng.random_range(1..=9));
        let mut game = Hex::new(w, h).unwrap();
        let mut grid: Grid = vec![vec![None; w]; h];
        for ((x, y), color) in random_stones(&mut rng, w, h) {
            if game.outcome().is_some() {
                break;
            }
            game.place(color, game.cell(x, y)).unwrap();
            grid[y][x] = Some(color);
            assert_eq!(game.winner(), bfs_winner(&grid));
        }
    }
}

#[test]
fn winner_is_symmetric_under_rotation_and_reflection_with_colour_swap() {
    let mut rng = rng::seeded(99);
    for _ in 0..20_000 {
        let (w, h) = (rng.random_range(1..=13), rng.random_range(1..=13));
        // Full boards always have a winner; partial ones often do not.
        let mut stones = random_stones(&mut rng, w, h);
        if rng.random_bool(0.5) {
            let mut grid = vec![vec![None; w]; h];
            for &((x, y), c) in &stones {
                grid[y][x] = Some(c);
            }
            for (y, row) in grid.iter().enumerate() {
                for (x, cell) in row.iter().enumerate() {
                    if cell.is_none() {
                        let color = if rng.random_bool(0.5) {
                            Color::Black
                        } else {
                            Color::White
                        };
                        stones.push(((x, y), color));
                    }
                }
            }
        }
        let winner = place_all(w, h, &stones).winner();
        let rotated: Vec<_> = stones
            .iter()
            .map(|&((x, y), c)| ((w - 1 - x, h - 1 - y), c))
            .collect();
        assert_eq!(place_all(w, h, &rotated).winner(), winner);
        let reflected: Vec<_> = stones
            .iter()
            .map(|&((x, y), c)| ((y, x), c.opponent()))
            .collect();
        assert_eq!(
            place_all(h, w, &reflected).winner(),
            winner.map(Color::opponent)
        );
    }
}

#[test]
fn full_boards_have_exactly_one_winner() {
    let mut rng = rng::seeded(5);
    for _ in 0..5_000 {
        let (w, h) = (rng.random_range(1..=19), rng.random_range(1..=19));
        let grid: Grid = (0..h)
            .map(|_| {
                (0..w)
                    .map(|_| {
                        Some(if rng.random_bool(0.5) {
                            Color::Black
                        } else {
                            Color::White
                        })
                    })
                    .collect()
            })
            .collect();
        assert_ne!(
            bfs_connects(&grid, Color::Black),
            bfs_connects(&grid, Color::White)
        );
    }
}

#[test]
fn fill_playout_is_a_legal_completion_with_the_right_winner() {
    let mut rng = rng::seeded(11);
    for _ in 0..5_000 {
        let (w, h) = (rng.random_range(1..=19), rng.random_range(1..=19));
        let mut game = Hex::new(w, h).unwrap();
        let plies = rng.random_range(0..=w * h / 3);
        tmbot::game::play_random_plies(&mut game, &mut rng, plies, |_, _| {});
        if game.outcome().is_some() {
            continue;
        }
        let (winner, black) = game.fill_playout(&mut rng);
        let mut grid = grid_of(&game);
        let empty = game.board().empty_cells().len();
        let mut new_black = 0;
        for (y, row) in grid.iter_mut().enumerate() {
            for (x, cell) in row.iter_mut().enumerate() {
                let index = game.cell(x, y);
                match *cell {
                    Some(Color::Black) => assert!(black.contains(index)),
                    Some(Color::White) => assert!(!black.contains(index)),
                    None => {
                        let color = if black.contains(index) {
                            new_black += 1;
                            Color::Black
                        } else {
                            Color::White
                        };
                        *cell = Some(color);
                    }
                }
            }
        }
        let mover_share = empty.div_ceil(2);
        let expected_black = match game.side_to_move() {
            Color::Black => mover_share,
            Color::White => empty - mover_share,
        };
        assert_eq!(new_black, expected_black);
        assert_eq!(Some(winner), bfs_winner(&grid));
    }
}

#[test]
fn fill_playout_draws_every_assignment_equally_often() {
    // One stone each on a 3x2 board leaves 4 empty cells; Black, to move, gets 2 of them:
    // C(4,2) = 6 assignments.
    let mut game = Hex::new(3, 2).unwrap();
    game.place(Color::Black, 0).unwrap();
    game.place(Color::White, 5).unwrap();
    let mut rng = rng::seeded(3);
    let mut counts = std::collections::HashMap::new();
    let samples = 60_000;
    for _ in 0..samples {
        let (_, black) = game.fill_playout(&mut rng);
        *counts.entry(black).or_insert(0u32) += 1;
    }
    assert_eq!(counts.len(), 6);
    for &n in counts.values() {
        // Expected 10,000 each; the standard deviation is about 91.
        assert!((9_500..=10_500).contains(&n), "{counts:?}");
    }
}

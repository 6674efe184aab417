//! Decided positions: a side whose stones join its two edges through adjacency, bridges and
//! edge templates with pairwise disjoint carriers has won whatever is played. Each link
//! needs one of two empty cells; an intrusion into one carrier is answered in the same
//! carrier, and no move touches two carriers, so the opponent cannot cut the chain.

use super::geometry::neighbours;
use super::state::Hex;
use crate::game::Color;

/// Expansions the search may make before it gives up (it then reports "not decided").
const BUDGET: usize = 20_000;

/// A node of the link graph: a group of stones, or one of the two edges.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Node {
    Near,
    Group(usize),
    Far,
}

/// A link between two nodes and the empty cells it needs (none for a direct touch).
struct Link {
    from: Node,
    to: Node,
    carrier: Vec<usize>,
}

/// Whether `color` is joined to both its edges by a chain of links with disjoint carriers.
pub fn virtually_connected(game: &Hex, color: Color) -> bool {
    let (w, h) = (game.width(), game.height());
    // Distance of a cell from the near and far edge, in `color`'s direction.
    let rank = |x: usize, y: usize| if color == Color::Black { y } else { x };
    let depth = if color == Color::Black { h } else { w };
    let cell = |x: usize, y: usize| y * w + x;
    // Groups of `color`'s stones by flood fill.
    let mut group = vec![usize::MAX; w * h];
    let mut groups = 0;
    for start in 0..w * h {
        if game.stone(start) != Some(color) || group[start] != usize::MAX {
            continue;
        }
        let mut stack = vec![start];
        group[start] = groups;
        while let Some(c) = stack.pop() {
            for n in game.neighbour_cells(c) {
                if game.stone(n) == Some(color) && group[n] == usize::MAX {
                    group[n] = groups;
                    stack.push(n);
                }
            }
        }
        groups += 1;
    }
    let empty = |c: usize| game.stone(c).is_none();
    let mut links: Vec<Link> = Vec::new();
    for c in (0..w * h).filter(|&c| group[c] != usize::MAX) {
        let (x, y) = game.xy(c);
        let g = Node::Group(group[c]);
        let r = rank(x, y);
        // Touching an edge, or one row away with both edge cells empty (the edge template).
        for (edge, edge_rank) in [(Node::Near, 0), (Node::Far, depth - 1)] {
            if r == edge_rank {
                links.push(Link {
                    from: g,
                    to: edge,
                    carrier: Vec::new(),
                });
            } else if r.abs_diff(edge_rank) == 1 {
                let cells: Vec<usize> = neighbours(x, y, w, h)
                    .filter(|&(nx, ny)| rank(nx, ny) == edge_rank)
                    .map(|(nx, ny)| cell(nx, ny))
                    .collect();
                if cells.len() == 2 && cells.iter().all(|&n| empty(n)) {
                    links.push(Link {
                        from: g,
                        to: edge,
                        carrier: cells,
                    });
                }
            }
        }
        // Bridges: another group's stone sharing exactly two empty neighbours with this one.
        let mine: Vec<usize> = game.neighbour_cells(c).collect();
        for &m in mine.iter().filter(|&&m| empty(m)) {
            for other in game.neighbour_cells(m) {
                if other <= c || group[other] == usize::MAX || group[other] == group[c] {
                    continue;
                }
                let common: Vec<usize> = game
                    .neighbour_cells(other)
                    .filter(|n| mine.contains(n))
                    .collect();
                if common.len() == 2 && common.iter().all(|&n| empty(n)) && common[0] == m {
                    links.push(Link {
                        from: g,
                        to: Node::Group(group[other]),
                        carrier: common,
                    });
                }
            }
        }
    }
    let mut visited = vec![false; groups];
    let mut used = vec![false; w * h];
    let mut budget = BUDGET;
    search(Node::Near, &links, &mut visited, &mut used, &mut budget)
}

/// Depth-first search for a chain from `at` to the far edge whose carriers stay disjoint.
fn search(
    at: Node,
    links: &[Link],
    visited: &mut [bool],
    used: &mut [bool],
    budget: &mut usize,
) -> bool {
    if at == Node::Far {
        return true;
    }
    for link in links {
        let next = if link.from == at {
            link.to
        } else if link.to == at {
            link.from
        } else {
            continue;
        };
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        if let Node::Group(g) = next {
            if visited[g] {
                continue;
            }
        }
        if next == Node::Near || link.carrier.iter().any(|&c| used[c]) {
            continue;
        }
        if let Node::Group(g) = next {
            visited[g] = true;
        }
        link.carrier.iter().for_each(|&c| used[c] = true);
        if search(next, links, visited, used, budget) {
            return true;
        }
        link.carrier.iter().for_each(|&c| used[c] = false);
        if let Node::Group(g) = next {
            visited[g] = false;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;

    fn position(size: usize, moves: &[&str]) -> Hex {
        let mut game = Hex::new(size, size).unwrap();
        for mv in moves {
            game.try_play(mv).unwrap();
        }
        game
    }

    #[test]
    fn a_bridge_chain_with_edge_templates_is_decided() {
        // Black b2, c3 (bridged by c2/b3), d4 (bridged by d3/c4) on 5x5: b2 sits one row from
        // the top (b1 and c1 empty), d4 one row from the bottom (c5 and d5 empty).
        let game = position(5, &["b2", "a5", "c3", "e1", "d4"]);
        assert!(virtually_connected(&game, Color::Black));
        assert!(!virtually_connected(&game, Color::White));
        // An intrusion into one bridge is answered: still decided after the reply.
        let mut cut = game.clone();
        cut.try_play("c2").unwrap();
        assert!(
            !virtually_connected(&cut, Color::Black),
            "the bridge is half gone"
        );
        cut.try_play("b3").unwrap();
        assert!(virtually_connected(&cut, Color::Black));
    }

    #[test]
    fn a_broken_edge_template_does_not_count() {
        // b2's edge template needs b1 and c1: with c1 taken it is broken.
        let game = position(4, &["b2", "c1", "c3"]);
        assert!(!virtually_connected(&game, Color::Black), "c1 is taken");
        let open = position(4, &["b2", "d1", "c3"]);
        assert!(virtually_connected(&open, Color::Black));
    }

    #[test]
    fn an_empty_board_and_a_finished_chain() {
        assert!(!virtually_connected(&position(5, &[]), Color::Black));
        let done = position(3, &["a1", "c1", "a2", "c2", "a3"]);
        assert!(virtually_connected(&done, Color::Black));
    }
}

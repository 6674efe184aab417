//! Seed 000's Hex connection features, from a plain cell array.
//!
//! For an N-cell board (N = width x height): `B_x_y` and `R_x_y` cell occupancy (N each), then
//! `CB_x0_y0_x1_y1` and `CR_...` for every pair of cells (x0, y0) before (x1, y1) in
//! row-major order, true when both cells hold that colour's stones in one connected group
//! (N(N-1)/2 each): N(N+1) features in all, 2450 on 7x7 and 6642 on 9x9.
//!
//! With edges ([`HexConnection::with_edges`], the encoder `hex-connection:edges=on`, seed
//! 000's proposed improvement), two more symbols close the list: `EDGES_B` and `EDGES_R`,
//! true when one group of that colour touches both of its edges (the colour has won).
//!
//! Colours follow seed 000: blue (`B`, cell value 1) joins the left and right columns, red
//! (`R`, cell value -1) joins the top and bottom rows. In this project's colours Black joins
//! top and bottom, so Black is `R` and White is `B`.

use crate::game::hex::geometry::neighbours;
use crate::game::Color;

/// The connection-feature encoder of one board size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HexConnection {
    width: usize,
    height: usize,
    edges: bool,
}

impl HexConnection {
    /// The encoder of a `width` x `height` board.
    pub fn new(width: usize, height: usize) -> HexConnection {
        HexConnection {
            width,
            height,
            edges: false,
        }
    }

    /// The encoder of a `width` x `height` board with the two "has connected its edges"
    /// symbols after the connection features.
    pub fn with_edges(width: usize, height: usize) -> HexConnection {
        HexConnection {
            edges: true,
            ..HexConnection::new(width, height)
        }
    }

    /// Number of cells.
    pub fn cells(&self) -> usize {
        self.width * self.height
    }

    /// Number of features, cells x (cells + 1) (plus 2 with edges).
    pub fn feature_count(&self) -> usize {
        self.cells() * (self.cells() + 1) + if self.edges { 2 } else { 0 }
    }

    fn xy(&self, cell: usize) -> (usize, usize) {
        (cell % self.width, cell / self.width)
    }

    /// The feature names, in feature order.
    pub fn feature_names(&self) -> Vec<String> {
        let n = self.cells();
        let mut names = Vec::with_capacity(self.feature_count());
        for prefix in ["B", "R"] {
            for c in 0..n {
                let (x, y) = self.xy(c);
                names.push(format!("{prefix}_{x}_{y}"));
            }
        }
        for prefix in ["CB", "CR"] {
            for a in 0..n {
                for b in a + 1..n {
                    let ((x0, y0), (x1, y1)) = (self.xy(a), self.xy(b));
                    names.push(format!("{prefix}_{x0}_{y0}_{x1}_{y1}"));
                }
            }
        }
        if self.edges {
            names.extend(["EDGES_B".to_string(), "EDGES_R".to_string()]);
        }
        names
    }

    /// Group label of every cell of colour `value` (others `usize::MAX`), by flood fill.
    fn groups(&self, cells: &[i8], value: i8) -> Vec<usize> {
        let mut label = vec![usize::MAX; cells.len()];
        let mut stack = Vec::new();
        for start in 0..cells.len() {
            if cells[start] != value || label[start] != usize::MAX {
                continue;
            }
            label[start] = start;
            stack.push(start);
            while let Some(c) = stack.pop() {
                let (x, y) = self.xy(c);
                for (nx, ny) in neighbours(x, y, self.width, self.height) {
                    let nc = ny * self.width + nx;
                    if cells[nc] == value && label[nc] == usize::MAX {
                        label[nc] = start;
                        stack.push(nc);
                    }
                }
            }
        }
        label
    }

    /// Whether one group of `label` touches a cell of `first` and a cell of `second`.
    fn joins(
        &self,
        label: &[usize],
        first: impl Fn(usize) -> bool,
        second: impl Fn(usize) -> bool,
    ) -> bool {
        let starts: Vec<usize> = (0..label.len())
            .filter(|&c| first(c) && label[c] != usize::MAX)
            .map(|c| label[c])
            .collect();
        (0..label.len()).any(|c| second(c) && label[c] != usize::MAX && starts.contains(&label[c]))
    }

    /// The 0/1 features of a board given as cell values in row-major order: 1 blue (`B`),
    /// -1 red (`R`), 0 empty.
    pub fn encode(&self, cells: &[i8]) -> Result<Vec<u8>, String> {
        let n = self.cells();
        if cells.len() != n {
            return Err(format!(
                "expected {n} cells for a {}x{} board, got {}",
                self.width,
                self.height,
                cells.len()
            ));
        }
        if let Some(i) = cells.iter().position(|v| !(-1..=1).contains(v)) {
            return Err(format!("cell {i}: value {} is not -1, 0 or 1", cells[i]));
        }
        let mut out = Vec::with_capacity(self.feature_count());
        for value in [1i8, -1] {
            out.extend(cells.iter().map(|&v| (v == value) as u8));
        }
        let mut labels = Vec::with_capacity(2);
        for value in [1i8, -1] {
            let label = self.groups(cells, value);
            for a in 0..n {
                for b in a + 1..n {
                    out.push((label[a] != usize::MAX && label[a] == label[b]) as u8);
                }
            }
            labels.push(label);
        }
        if self.edges {
            // Blue joins the left and right columns, red the top and bottom rows.
            let (w, h) = (self.width, self.height);
            let blue = self.joins(&labels[0], |c| c % w == 0, |c| c % w == w - 1);
            let red = self.joins(&labels[1], |c| c / w == 0, |c| c / w == h - 1);
            out.extend([blue as u8, red as u8]);
        }
        Ok(out)
    }

    /// The features of a board given as stones: White is blue (`B`), Black is red (`R`).
    pub fn encode_stones(&self, cells: &[Option<Color>]) -> Result<Vec<u8>, String> {
        let values: Vec<i8> = cells
            .iter()
            .map(|c| match c {
                Some(Color::White) => 1,
                Some(Color::Black) => -1,
                None => 0,
            })
            .collect();
        self.encode(&values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_match_seed_000() {
        assert_eq!(HexConnection::new(7, 7).feature_count(), 2450);
        assert_eq!(HexConnection::new(9, 9).feature_count(), 6642);
        let names = HexConnection::new(7, 7).feature_names();
        assert_eq!(names.len(), 2450);
        assert_eq!(names[0], "B_0_0");
        assert_eq!(names[49], "R_0_0");
        assert_eq!(names[98], "CB_0_0_1_0");
        assert!(names.contains(&"CR_3_0_5_5".to_string()));
        assert!(names.contains(&"CB_4_0_1_6".to_string()));
    }

    #[test]
    fn groups_follow_hex_adjacency() {
        // Blue stones at (0,0), (0,2), (2,2); red at (2,0) and (1,1).
        let enc = HexConnection::new(3, 3);
        #[rustfmt::skip]
        let cells = [
            1, 0, -1,
            0, -1, 0,
            1, 0, 1,
        ];
        let f = enc.encode(&cells).unwrap();
        let names = enc.feature_names();
        let on = |name: &str| f[names.iter().position(|n| n == name).unwrap()] == 1;
        assert!(on("B_0_0") && on("R_2_0") && on("B_2_2") && !on("R_0_0"));
        // Red (2,0) and (1,1) touch through (-1, +1).
        assert!(on("CR_2_0_1_1"));
        // Blue (0,0) and (0,2) are not connected (the cell between is empty).
        assert!(!on("CB_0_0_0_2"));
        assert!(!on("CB_0_2_2_2"));
        let total: u32 = f.iter().map(|&b| b as u32).sum();
        assert_eq!(total, 5 + 1, "5 stones and one connected pair");
        assert!(enc.encode(&cells[..8]).is_err());
        assert!(enc.encode(&[2, 0, 0, 0, 0, 0, 0, 0, 0]).is_err());
    }

    #[test]
    fn stones_map_white_to_blue() {
        let enc = HexConnection::new(2, 1);
        let f = enc
            .encode_stones(&[Some(Color::White), Some(Color::White)])
            .unwrap();
        assert_eq!(f, [1, 1, 0, 0, 1, 0]);
    }
}

#[cfg(test)]
mod edge_tests {
    use super::*;
    use crate::game::hex::Hex;
    use crate::game::Game;
    use crate::rng::seeded;
    use rand::Rng as _;

    #[test]
    fn edge_symbols_name_the_winner_of_finished_games() {
        let enc = HexConnection::with_edges(5, 5);
        assert_eq!(enc.feature_count(), 25 * 26 + 2);
        let names = enc.feature_names();
        assert_eq!(&names[650..], ["EDGES_B", "EDGES_R"]);
        let mut rng = seeded(3);
        let mut moves = Vec::new();
        for _ in 0..200 {
            let mut game = Hex::new(5, 5).unwrap();
            let mut before_end = None;
            while game.outcome().is_none() {
                before_end = Some(game.clone());
                game.legal_moves(&mut moves);
                game.play(moves[rng.random_range(0..moves.len())]);
            }
            let stones = |g: &Hex| -> Vec<Option<Color>> { (0..25).map(|c| g.stone(c)).collect() };
            let bits = enc.encode_stones(&stones(&game)).unwrap();
            let winner = game.outcome().unwrap().winner.unwrap();
            // White is blue (B), Black is red (R).
            let expected = match winner {
                Color::White => [1, 0],
                Color::Black => [0, 1],
            };
            assert_eq!(bits[650..], expected);
            // One move earlier nobody had connected.
            let bits = enc.encode_stones(&stones(&before_end.unwrap())).unwrap();
            assert_eq!(bits[650..], [0, 0]);
            // Without edges, the same features minus the two symbols.
            let plain = HexConnection::new(5, 5)
                .encode_stones(&stones(&game))
                .unwrap();
            assert_eq!(plain[..], enc.encode_stones(&stones(&game)).unwrap()[..650]);
        }
    }
}

//! Seed 001's checkers metadata (its StandardPureMetaData composition), binarized.
//!
//! The thesis's seven attributes of a board seen by one side ("own") against the other:
//! own men, opponent men, own kings, opponent kings, own pieces on the side edges (squares
//! 4, 5, 12, 13, 20, 21, 28 and 29), and each side's vertical centre of mass: rows numbered
//! 1 to 8 from that side's own back rank, men weighing 1 and kings 2, the weighted mean row
//! rounded down (0 without pieces). Each becomes a thermometer (`own-men>=3` is true with
//! three own men or more): 12 + 12 + 12 + 12 + 8 + 7 + 7 = 70 features.
//!
//! Beside them, ours: the material balance (`checkers-planes:balance=on`), own pieces minus
//! the opponent's and own kings minus the opponent's, each as a thermometer from -11 to 12.

use crate::game::Color;

/// Squares (0-based) on the left and right edges of the board.
const EDGE_SQUARES: [u32; 8] = [3, 4, 11, 12, 19, 20, 27, 28];

/// The attributes with the thresholds of their thermometers.
const ATTRIBUTES: [(&str, std::ops::RangeInclusive<u32>); 7] = [
    ("own-men", 1..=12),
    ("opponent-men", 1..=12),
    ("own-kings", 1..=12),
    ("opponent-kings", 1..=12),
    ("own-edge", 1..=8),
    ("own-centre", 2..=8),
    ("opponent-centre", 2..=8),
];

/// Number of features.
pub const FEATURES: usize = 70;

/// The feature names, `own-men>=1` .. `opponent-centre>=8`.
pub fn feature_names() -> Vec<String> {
    thermometer_names(&ATTRIBUTES)
}

/// `name>=k` for every threshold k of every thermometer.
fn thermometer_names<T: Copy + std::fmt::Display>(
    thermometers: &[(&str, std::ops::RangeInclusive<T>)],
) -> Vec<String>
where
    std::ops::RangeInclusive<T>: Iterator<Item = T>,
{
    thermometers
        .iter()
        .flat_map(|(name, range)| range.clone().map(move |k| format!("{name}>={k}")))
        .collect()
}

/// Appends each thermometer's bits for its value: 1 for every threshold the value reaches.
fn encode_thermometers<T: Copy + PartialOrd>(
    thermometers: &[(&str, std::ops::RangeInclusive<T>)],
    values: impl IntoIterator<Item = T>,
    out: &mut Vec<u8>,
) where
    std::ops::RangeInclusive<T>: Iterator<Item = T>,
{
    for ((_, range), value) in thermometers.iter().zip(values) {
        out.extend(range.clone().map(|k| u8::from(value >= k)));
    }
}

/// The vertical centre of mass of `men` and `kings` (bitboards, bit i = square i+1) for the
/// side whose back rank is `color`'s: rows 1..8 from that rank, rounded down; 0 when empty.
fn centre(men: u32, kings: u32, color: Color) -> u32 {
    let (mut sum, mut weighted) = (0, 0);
    for square in 0..32u32 {
        let weight = ((men >> square) & 1) + 2 * ((kings >> square) & 1);
        let row = match color {
            Color::Black => square / 4 + 1,
            Color::White => 8 - square / 4,
        };
        sum += weight;
        weighted += weight * row;
    }
    weighted.checked_div(sum).unwrap_or(0)
}

/// Appends the features of a board (planes: black men, black kings, white men, white
/// kings) seen by `own` to `out`.
pub fn encode(planes: [u32; 4], own: Color, out: &mut Vec<u8>) {
    let [bm, bk, wm, wk] = planes;
    let ((om, ok), (pm, pk)) = match own {
        Color::Black => ((bm, bk), (wm, wk)),
        Color::White => ((wm, wk), (bm, bk)),
    };
    let edges = EDGE_SQUARES
        .iter()
        .filter(|&&s| ((om | ok) >> s) & 1 == 1)
        .count() as u32;
    let values = [
        om.count_ones(),
        pm.count_ones(),
        ok.count_ones(),
        pk.count_ones(),
        edges,
        centre(om, ok, own),
        centre(pm, pk, own.opponent()),
    ];
    encode_thermometers(&ATTRIBUTES, values, out);
}

/// The balances with the thresholds of their thermometers.
const BALANCES: [(&str, std::ops::RangeInclusive<i32>); 2] =
    [("piece-balance", -11..=12), ("king-balance", -11..=12)];

/// Number of material balance features.
pub const BALANCE_FEATURES: usize = 48;

/// The balance feature names, `piece-balance>=-11` .. `king-balance>=12`.
pub fn balance_names() -> Vec<String> {
    thermometer_names(&BALANCES)
}

/// Appends the material balance of a board (planes as for [`encode`]) seen by `own`.
pub fn encode_balance(planes: [u32; 4], own: Color, out: &mut Vec<u8>) {
    let [bm, bk, wm, wk] = planes.map(|p| p.count_ones() as i32);
    let (pieces, kings) = ((bm + bk) - (wm + wk), bk - wk);
    let sign = if own == Color::Black { 1 } else { -1 };
    encode_thermometers(&BALANCES, [sign * pieces, sign * kings], out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::checkers::Position;

    fn features(planes: [u32; 4], own: Color) -> Vec<(String, u8)> {
        let mut out = Vec::new();
        encode(planes, own, &mut out);
        feature_names().into_iter().zip(out).collect()
    }

    fn get(f: &[(String, u8)], name: &str) -> u8 {
        f.iter().find(|(n, _)| n == name).expect(name).1
    }

    #[test]
    fn the_start_position_from_either_side() {
        assert_eq!(feature_names().len(), FEATURES);
        let planes = Position::start().planes();
        for own in Color::BOTH {
            let f = features(planes, own);
            assert_eq!(get(&f, "own-men>=12"), 1);
            assert_eq!(get(&f, "opponent-men>=12"), 1);
            assert_eq!(get(&f, "own-kings>=1"), 0);
            // Squares 4, 5 and 12 hold Black's men; 21, 28 and 29 White's.
            assert_eq!(get(&f, "own-edge>=3"), 1);
            assert_eq!(get(&f, "own-edge>=4"), 0);
            // Rows 1-3 evenly filled: centre row 2 for both sides.
            assert_eq!(get(&f, "own-centre>=2"), 1);
            assert_eq!(get(&f, "own-centre>=3"), 0);
            assert_eq!(get(&f, "opponent-centre>=2"), 1);
        }
    }

    #[test]
    fn the_balance_counts_pieces_and_kings_from_either_side() {
        assert_eq!(balance_names().len(), BALANCE_FEATURES);
        // Black: a man and two kings; White: a man. Black is two pieces and two kings up.
        let planes = [1, (1 << 10) | (1 << 11), 1 << 31, 0];
        let balance = |own| {
            let mut out = Vec::new();
            encode_balance(planes, own, &mut out);
            balance_names().into_iter().zip(out).collect::<Vec<_>>()
        };
        let black = balance(Color::Black);
        assert_eq!(get(&black, "piece-balance>=2"), 1);
        assert_eq!(get(&black, "piece-balance>=3"), 0);
        assert_eq!(get(&black, "king-balance>=2"), 1);
        assert_eq!(get(&black, "king-balance>=3"), 0);
        let white = balance(Color::White);
        assert_eq!(get(&white, "piece-balance>=-2"), 1);
        assert_eq!(get(&white, "piece-balance>=-1"), 0);
        assert_eq!(get(&white, "king-balance>=-11"), 1);
        assert_eq!(get(&white, "king-balance>=-1"), 0);
    }

    #[test]
    fn kings_weigh_double_in_the_centre() {
        // A black man on square 1 (row 1) and a black king on square 29 (row 8):
        // (1 + 2 x 8) / 3 = 5.67 -> row 5.
        let planes = [1, 1 << 28, 0, 0];
        let f = features(planes, Color::Black);
        assert_eq!(get(&f, "own-centre>=5"), 1);
        assert_eq!(get(&f, "own-centre>=6"), 0);
        assert_eq!(get(&f, "own-kings>=1"), 1);
        assert_eq!(get(&f, "own-edge>=1"), 1, "square 29 is on the edge");
        assert_eq!(get(&f, "opponent-centre>=2"), 0);
    }
}

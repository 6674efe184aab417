//! Small hand-written SVG charts: a rating list with error bars, and scores (or ratings) over
//! games. Non-finite numbers are left out (or read as 0), so the output never holds NaN.

use std::fmt::Write;

/// Width of every chart, in pixels.
const WIDTH: f64 = 760.0;

/// Line colours of the series, in turn.
const PALETTE: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];

/// `text` with the XML special characters escaped.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            _ => out.push(c),
        }
    }
    out
}

/// `x`, or 0 when it is not finite.
fn finite_or_zero(x: f64) -> f64 {
    if x.is_finite() {
        x
    } else {
        0.0
    }
}

/// A range covering `low..high`, widened when empty so that a scale never divides by zero.
fn widen(low: f64, high: f64) -> (f64, f64) {
    if high > low {
        (low, high)
    } else {
        let half = if low == 0.0 { 1.0 } else { low.abs() * 0.1 };
        (low - half, high + half)
    }
}

/// Round tick positions covering `low..=high` (about six of them) and the decimals to print.
fn ticks(low: f64, high: f64) -> (Vec<f64>, usize) {
    let raw = (high - low) / 6.0;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|&s| s >= raw)
        .unwrap_or(10.0 * magnitude);
    let decimals = if step >= 1.0 {
        0
    } else {
        (-step.log10()).ceil() as usize
    };
    let first = (low / step).ceil() as i64;
    let last = (high / step).floor() as i64;
    let values = (first..=last).map(|k| k as f64 * step).collect();
    (values, decimals)
}

/// A linear map from `domain` onto the pixel range `range`.
fn scale(domain: (f64, f64), range: (f64, f64)) -> impl Fn(f64) -> f64 {
    move |v| range.0 + (v - domain.0) / (domain.1 - domain.0) * (range.1 - range.0)
}

/// The opening of an SVG document of `width` x `height` pixels with a white background and
/// `title`.
fn header(svg: &mut String, width: f64, height: f64, title: &str) {
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(
        svg,
        r#"<rect width="{width}" height="{height}" fill="white"/>"#
    );
    let _ = writeln!(
        svg,
        r#"<text x="{:.1}" y="22" text-anchor="middle" font-size="15" font-weight="bold">{}</text>"#,
        width / 2.0,
        escape(title)
    );
}

/// A horizontal rating chart: one row per `(name, elo, error95)`, sorted by rating (best on
/// top), with the rating as a dot, its 95% interval as a bar, the name on the left and
/// "elo +- error" on the right, over a dashed zero line and an Elo axis with round ticks.
/// A non-finite rating or error is drawn as 0; a negative error as its magnitude.
pub fn rating_chart(title: &str, rows: &[(String, f64, f64)]) -> String {
    let mut rows: Vec<(&str, f64, f64)> = rows
        .iter()
        .map(|(name, elo, error)| {
            (
                name.as_str(),
                finite_or_zero(*elo),
                finite_or_zero(*error).abs(),
            )
        })
        .collect();
    rows.sort_by(|a, b| b.1.total_cmp(&a.1));

    // Room on the left for the longest name (about 7 pixels a character at 12 px).
    let longest = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(0) as f64;
    let left = (7.0 * longest + 16.0).max(170.0);
    let width = left + WIDTH - 170.0;
    let (right, top, row_height) = (width - 130.0, 44.0, 22.0);
    let bottom = top + row_height * rows.len().max(1) as f64;
    let height = bottom + 40.0;
    let low = rows.iter().map(|r| r.1 - r.2).fold(0.0, f64::min);
    let high = rows.iter().map(|r| r.1 + r.2).fold(0.0, f64::max);
    let (low, high) = widen(low, high);
    let pad = (high - low) * 0.05;
    let (low, high) = (low - pad, high + pad);
    let x = scale((low, high), (left, right));

    let mut svg = String::new();
    header(&mut svg, width, height, title);
    // Axis, ticks and grid.
    let (tick_values, decimals) = ticks(low, high);
    let _ = writeln!(
        svg,
        r##"<line x1="{left:.1}" y1="{bottom:.1}" x2="{right:.1}" y2="{bottom:.1}" stroke="#333"/>"##
    );
    for t in tick_values {
        let tx = x(t);
        let _ = writeln!(
            svg,
            r##"<line x1="{tx:.1}" y1="{top:.1}" x2="{tx:.1}" y2="{bottom:.1}" stroke="#eee"/>"##
        );
        let _ = writeln!(
            svg,
            r##"<line x1="{tx:.1}" y1="{bottom:.1}" x2="{tx:.1}" y2="{:.1}" stroke="#333"/>"##,
            bottom + 5.0
        );
        let _ = writeln!(
            svg,
            r#"<text x="{tx:.1}" y="{:.1}" text-anchor="middle">{t:.decimals$}</text>"#,
            bottom + 18.0
        );
    }
    let _ = writeln!(
        svg,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">Elo</text>"#,
        (left + right) / 2.0,
        bottom + 34.0
    );
    let zero = x(0.0);
    let _ = writeln!(
        svg,
        r##"<line x1="{zero:.1}" y1="{top:.1}" x2="{zero:.1}" y2="{bottom:.1}" stroke="#888" stroke-dasharray="4 3"/>"##
    );
    // Rows.
    for (i, (name, elo, error)) in rows.iter().enumerate() {
        let y = top + row_height * (i as f64 + 0.5);
        let (x0, x1, xe) = (x(elo - error), x(elo + error), x(*elo));
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            left - 8.0,
            y + 4.0,
            escape(name)
        );
        let _ = writeln!(
            svg,
            r##"<line x1="{x0:.1}" y1="{y:.1}" x2="{x1:.1}" y2="{y:.1}" stroke="#1f77b4" stroke-width="2"/>"##
        );
        for cap in [x0, x1] {
            let _ = writeln!(
                svg,
                r##"<line x1="{cap:.1}" y1="{:.1}" x2="{cap:.1}" y2="{:.1}" stroke="#1f77b4" stroke-width="2"/>"##,
                y - 5.0,
                y + 5.0
            );
        }
        let _ = writeln!(
            svg,
            r##"<circle cx="{xe:.1}" cy="{y:.1}" r="3.5" fill="#d62728"/>"##
        );
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}">{elo:+.1} ± {error:.1}</text>"#,
            right + 10.0,
            y + 4.0
        );
    }
    svg.push_str("</svg>\n");
    svg
}

/// A line chart of one or more series of `(games, value)` points (a score or a rating over
/// games): [`line_chart`] with "games" on the x axis.
pub fn score_chart(title: &str, series: &[(String, Vec<(f64, f64)>)], y_label: &str) -> String {
    line_chart(title, series, "games", y_label)
}

/// A line chart of one or more series of `(x, y)` points: one polyline per series in its
/// own colour, a legend, axes with round ticks, `x_label` and `y_label` on the axes.
/// Non-finite points are left out; a series of one point is drawn as a dot.
pub fn line_chart(
    title: &str,
    series: &[(String, Vec<(f64, f64)>)],
    x_label: &str,
    y_label: &str,
) -> String {
    let series: Vec<(&str, Vec<(f64, f64)>)> = series
        .iter()
        .map(|(name, points)| {
            let kept = points
                .iter()
                .copied()
                .filter(|(x, y)| x.is_finite() && y.is_finite())
                .collect();
            (name.as_str(), kept)
        })
        .collect();
    let all = || series.iter().flat_map(|(_, points)| points.iter().copied());
    let (x_low, x_high) = all().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), (x, _)| {
        (l.min(x), h.max(x))
    });
    let (y_low, y_high) = all().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), (_, y)| {
        (l.min(y), h.max(y))
    });
    let (x_low, x_high) = if x_low.is_finite() {
        widen(x_low, x_high)
    } else {
        (0.0, 1.0)
    };
    let (y_low, y_high) = if y_low.is_finite() {
        widen(y_low, y_high)
    } else {
        (0.0, 1.0)
    };
    let pad = (y_high - y_low) * 0.05;
    let (y_low, y_high) = (y_low - pad, y_high + pad);

    // Room on the right for the legend's longest name (about 7 pixels a character).
    let longest = series
        .iter()
        .map(|(n, _)| n.chars().count())
        .max()
        .unwrap_or(0) as f64;
    let width = WIDTH - 170.0 + (7.0 * longest + 40.0).max(170.0);
    let (left, right, top, bottom) = (70.0, width - (7.0 * longest + 40.0).max(170.0), 40.0, 380.0);
    let height = bottom + 45.0;
    let x = scale((x_low, x_high), (left, right));
    let y = scale((y_low, y_high), (bottom, top));

    let mut svg = String::new();
    header(&mut svg, width, height, title);
    // Axes, ticks and grid.
    let _ = writeln!(
        svg,
        r##"<line x1="{left:.1}" y1="{bottom:.1}" x2="{right:.1}" y2="{bottom:.1}" stroke="#333"/>"##
    );
    let _ = writeln!(
        svg,
        r##"<line x1="{left:.1}" y1="{top:.1}" x2="{left:.1}" y2="{bottom:.1}" stroke="#333"/>"##
    );
    let (x_ticks, x_decimals) = ticks(x_low, x_high);
    for t in x_ticks {
        let tx = x(t);
        let _ = writeln!(
            svg,
            r##"<line x1="{tx:.1}" y1="{top:.1}" x2="{tx:.1}" y2="{bottom:.1}" stroke="#eee"/>"##
        );
        let _ = writeln!(
            svg,
            r#"<text x="{tx:.1}" y="{:.1}" text-anchor="middle">{t:.x_decimals$}</text>"#,
            bottom + 18.0
        );
    }
    let (y_ticks, y_decimals) = ticks(y_low, y_high);
    for t in y_ticks {
        let ty = y(t);
        let _ = writeln!(
            svg,
            r##"<line x1="{left:.1}" y1="{ty:.1}" x2="{right:.1}" y2="{ty:.1}" stroke="#eee"/>"##
        );
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{t:.y_decimals$}</text>"#,
            left - 6.0,
            ty + 4.0
        );
    }
    let _ = writeln!(
        svg,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
        (left + right) / 2.0,
        bottom + 36.0,
        escape(x_label)
    );
    let mid = (top + bottom) / 2.0;
    let _ = writeln!(
        svg,
        r#"<text x="16" y="{mid:.1}" text-anchor="middle" transform="rotate(-90 16 {mid:.1})">{}</text>"#,
        escape(y_label)
    );
    // Series and legend.
    for (i, (name, points)) in series.iter().enumerate() {
        let colour = PALETTE[i % PALETTE.len()];
        match points.as_slice() {
            [] => {}
            [(px, py)] => {
                let _ = writeln!(
                    svg,
                    r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{colour}"/>"#,
                    x(*px),
                    y(*py)
                );
            }
            _ => {
                let mut coordinates = String::new();
                for (px, py) in points {
                    let _ = write!(coordinates, "{:.1},{:.1} ", x(*px), y(*py));
                }
                let _ = writeln!(
                    svg,
                    r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="1.5"/>"#,
                    coordinates.trim_end()
                );
            }
        }
        let ly = top + 8.0 + 18.0 * i as f64;
        let _ = writeln!(
            svg,
            r#"<line x1="{:.1}" y1="{ly:.1}" x2="{:.1}" y2="{ly:.1}" stroke="{colour}" stroke-width="2"/>"#,
            right + 12.0,
            right + 32.0
        );
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}">{}</text>"#,
            right + 38.0,
            ly + 4.0,
            escape(name)
        );
    }
    svg.push_str("</svg>\n");
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks that the tags of `svg` nest properly, that the root is one `svg` element, that no
    /// text holds a raw `<` or `&` outside an entity, and that no number is NaN or infinite.
    fn assert_well_formed(svg: &str) {
        let mut stack: Vec<&str> = Vec::new();
        let mut rest = svg;
        let mut roots = 0;
        while let Some(open) = rest.find('<') {
            let text = &rest[..open];
            assert_entities(text);
            let close = rest[open..].find('>').expect("unclosed tag") + open;
            let tag = &rest[open + 1..close];
            assert!(!tag.contains('<'), "'<' inside a tag: {tag}");
            if let Some(name) = tag.strip_prefix('/') {
                assert_eq!(stack.pop(), Some(name.trim()), "mismatched </{name}>");
            } else {
                let name = tag.split_whitespace().next().expect("empty tag");
                let name = name.trim_end_matches('/');
                if stack.is_empty() {
                    roots += 1;
                    assert_eq!(name, "svg");
                }
                if !tag.ends_with('/') {
                    stack.push(name);
                }
                assert_entities(tag);
            }
            rest = &rest[close + 1..];
        }
        assert!(stack.is_empty(), "unclosed elements {stack:?}");
        assert_eq!(roots, 1);
        assert!(rest.trim().is_empty());
        let lower = svg.to_lowercase();
        assert!(!lower.contains("nan") && !lower.contains("inf"), "{svg}");
        assert_eq!(svg.matches("<text").count(), svg.matches("</text>").count());
    }

    /// Every `&` in `text` starts one of the five XML entities.
    fn assert_entities(text: &str) {
        for (i, _) in text.match_indices('&') {
            let after = &text[i..];
            assert!(
                ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"]
                    .iter()
                    .any(|e| after.starts_with(e)),
                "bare '&' in {text}"
            );
        }
    }

    #[test]
    fn escape_covers_the_special_characters() {
        assert_eq!(escape(r#"a<b>&"c'"#), "a&lt;b&gt;&amp;&quot;c&apos;");
    }

    #[test]
    fn ticks_are_round() {
        let (values, decimals) = ticks(-130.0, 260.0);
        assert_eq!(values, vec![-100.0, 0.0, 100.0, 200.0]);
        assert_eq!(decimals, 0);
        let (values, decimals) = ticks(0.4, 0.62);
        assert_eq!(decimals, 2);
        assert!(values.first().unwrap() >= &0.4 && values.last().unwrap() <= &0.62);
    }

    #[test]
    fn rating_chart_is_well_formed_and_sorted() {
        let rows = vec![
            ("weak <random>".to_string(), -150.0, 40.0),
            ("A&B \"alpha-beta\"".to_string(), 120.5, 25.0),
            ("mcts".to_string(), 29.5, 30.0),
        ];
        let svg = rating_chart("Round robin <hex>", &rows);
        assert_well_formed(&svg);
        assert!(svg.contains("A&amp;B &quot;alpha-beta&quot;"));
        assert!(svg.contains("weak &lt;random&gt;"));
        assert!(svg.contains("Round robin &lt;hex&gt;"));
        assert!(!svg.contains("<random>"));
        assert!(svg.contains("+120.5 ± 25.0"));
        let best = svg.find("A&amp;B").unwrap();
        let middle = svg.find("mcts").unwrap();
        let worst = svg.find("weak &lt;").unwrap();
        assert!(best < middle && middle < worst);
    }

    #[test]
    fn degenerate_rating_charts_are_valid() {
        let svg = rating_chart("one", &[("only".to_string(), 0.0, 0.0)]);
        assert_well_formed(&svg);
        assert!(svg.contains("only"));
        assert_well_formed(&rating_chart("none", &[]));
        let odd = [
            ("nan".to_string(), f64::NAN, f64::INFINITY),
            ("neg".to_string(), 5.0, -3.0),
        ];
        let svg = rating_chart("odd", &odd);
        // The names are the only "nan" allowed: check the rest.
        assert_well_formed(&svg.replace(">nan<", "><"));
    }

    #[test]
    fn score_chart_is_well_formed_with_a_legend() {
        let series = vec![
            (
                "tm & mcts".to_string(),
                vec![(10.0, 0.4), (20.0, 0.55), (30.0, 0.6)],
            ),
            (
                "<base>".to_string(),
                vec![(10.0, 0.5), (20.0, 0.5), (30.0, 0.48)],
            ),
        ];
        let svg = score_chart("Score over games", &series, "score of A");
        assert_well_formed(&svg);
        assert!(svg.contains("tm &amp; mcts") && svg.contains("&lt;base&gt;"));
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert!(svg.contains("score of A") && svg.contains(">games<"));
    }

    #[test]
    fn degenerate_score_charts_are_valid() {
        assert_well_formed(&score_chart("empty", &[], "score"));
        let empty_series = vec![("nothing".to_string(), Vec::new())];
        assert_well_formed(&score_chart("empty series", &empty_series, "score"));
        let single = vec![("one".to_string(), vec![(5.0, 0.5)])];
        let svg = score_chart("single", &single, "score");
        assert_well_formed(&svg);
        assert!(svg.contains("<circle"));
        let flat = vec![(
            "flat".to_string(),
            vec![(0.0, 0.0), (0.0, 0.0), (f64::NAN, 1.0)],
        )];
        assert_well_formed(&score_chart("flat", &flat, "Elo"));
    }
}

//! `/graph`: the rows and what they wait on, drawn by the server as SVG. Rows are laid out in
//! layers (a row stands right of every row it waits on), ordered within a layer to keep
//! edges short, and coloured by status; `?row=ID` highlights that row and every row it waits
//! on, transitively. At most `MAX_NODES` rows are drawn, and the page says which were left out.

use std::collections::{BTreeMap, HashMap, HashSet};

use mosaic_queue_core::Status;

use super::layout::{Nav, page, status_class};
use crate::board::escape;
use crate::engine::board::{Card, Snapshot};

/// The most rows one drawing holds: readable, and bounded whatever the queue holds.
pub const MAX_NODES: usize = 400;
const W: usize = 210;
const H: usize = 34;
const GAP_X: usize = 70;
const GAP_Y: usize = 12;
const PAD: usize = 16;
/// Characters of a piece shown inside a node (the node's title holds it whole).
const NODE_CHARS: usize = 24;

/// What a drawing holds.
pub struct Drawing {
    pub svg: String,
    /// Rows drawn, in queue order.
    pub drawn: Vec<u64>,
    /// Done rows not drawn because no drawn row waits on them.
    pub done_hidden: usize,
    /// Rows left out past `MAX_NODES`, by status.
    pub capped: BTreeMap<Status, usize>,
    /// The chosen row's transitive dependencies (the row itself aside).
    pub closure: Vec<u64>,
}

/// `/graph` with `chosen` highlighted (when it is a row of the queue).
pub fn graph_page(snap: &Snapshot, chosen: Option<u64>) -> String {
    let chosen = chosen.filter(|id| snap.card(*id).is_some());
    let d = draw(snap, chosen);
    let mut body = String::from("<h1>Dependency graph</h1>");
    body.push_str(&legend());
    body.push_str("<form class=\"filter\" action=\"/graph\" method=\"get\"><label>row<input name=\"row\" inputmode=\"numeric\"></label><button type=\"submit\">highlight what it waits on</button></form>");
    if let Some(id) = chosen {
        body.push_str(&chosen_line(snap, id, &d.closure));
    } else {
        body.push_str(
            "<p class=\"left-out\">Choose a row (click it) to highlight every row it waits on.</p>",
        );
    }
    body.push_str(&format!("<figure class=\"graph\">{}</figure>", d.svg));
    body.push_str(&left_out(snap, &d));
    page(snap, Nav::Graph, "Graph", &body)
}

fn legend() -> String {
    let mut out = String::from("<p class=\"legend\">");
    for s in Status::ALL {
        out.push_str(&format!(
            "<span class=\"{}\">{}</span>",
            status_class(s),
            s.as_str()
        ));
    }
    out.push_str("</p>");
    out
}

fn chosen_line(snap: &Snapshot, id: u64, closure: &[u64]) -> String {
    let piece = snap.card(id).map_or("", |c| c.row.piece.as_str());
    let open = closure
        .iter()
        .filter(|d| snap.card(**d).is_some_and(|c| c.row.status != Status::Done))
        .count();
    format!(
        "<p class=\"panel\"><a href=\"/row/{id}\">#{id} {}</a> waits on {} rows, {open} of them not done. <a href=\"/graph\">clear</a></p>",
        escape::line(piece),
        closure.len()
    )
}

fn left_out(snap: &Snapshot, d: &Drawing) -> String {
    let mut out = format!(
        "<p class=\"left-out\">Drawn: {} of {} rows.",
        d.drawn.len(),
        snap.cards.len()
    );
    if d.done_hidden > 0 {
        out.push_str(&format!(
            " {} done rows are not drawn: no drawn row waits on them.",
            d.done_hidden
        ));
    }
    if !d.capped.is_empty() {
        let parts: Vec<String> = d
            .capped
            .iter()
            .map(|(s, n)| format!("{n} {}", s.as_str()))
            .collect();
        out.push_str(&format!(
            " Left out past the {MAX_NODES}-row limit: {} (rows with dependencies come first; choose a row to draw what it waits on; the board and the lanes list every row).",
            parts.join(", ")
        ));
    }
    if snap.archived_rows > 0 {
        out.push_str(&format!(
            " {} archived rows are in the cut's archives.",
            snap.archived_rows
        ));
    }
    out.push_str("</p>");
    out
}

/// The rows to draw, in queue order, and the chosen row's closure.
fn select(snap: &Snapshot, chosen: Option<u64>) -> (Vec<u64>, Vec<u64>, Drawing) {
    let index: HashMap<u64, &Card> = snap.cards.iter().map(|c| (c.row.id, c)).collect();
    let closure = chosen.map_or_else(Vec::new, |id| closure(&index, id));
    let waited_on: HashSet<u64> = snap
        .cards
        .iter()
        .flat_map(|c| c.row.after.iter().copied())
        .filter(|id| index.contains_key(id))
        .collect();
    let open = |c: &&Card| c.row.status != Status::Done;
    let linked = |c: &&Card| {
        c.row.after.iter().any(|d| index.contains_key(d)) || waited_on.contains(&c.row.id)
    };
    let mut order: Vec<u64> = chosen.into_iter().chain(closure.iter().copied()).collect();
    order.extend(
        snap.cards
            .iter()
            .filter(|c| open(c) && linked(c))
            .map(|c| c.row.id),
    );
    // Done rows that an open row drawn so far waits on: the edges that explain it.
    let needed: HashSet<u64> = order
        .iter()
        .filter_map(|id| index.get(id))
        .filter(|c| c.row.status != Status::Done)
        .flat_map(|c| c.row.after.iter().copied())
        .collect();
    order.extend(
        snap.cards
            .iter()
            .filter(|c| !open(c) && needed.contains(&c.row.id))
            .map(|c| c.row.id),
    );
    order.extend(
        snap.cards
            .iter()
            .filter(|c| open(c) && !linked(c))
            .map(|c| c.row.id),
    );
    let mut seen = HashSet::new();
    order.retain(|id| seen.insert(*id));
    let mut drawing = Drawing {
        svg: String::new(),
        drawn: Vec::new(),
        done_hidden: 0,
        capped: BTreeMap::new(),
        closure: closure.clone(),
    };
    for id in order.iter().skip(MAX_NODES) {
        if let Some(c) = index.get(id) {
            *drawing.capped.entry(c.row.status).or_default() += 1;
        }
    }
    order.truncate(MAX_NODES);
    let kept: HashSet<u64> = order.iter().copied().collect();
    drawing.done_hidden = snap
        .cards
        .iter()
        .filter(|c| c.row.status == Status::Done && !seen.contains(&c.row.id))
        .count();
    let in_queue_order: Vec<u64> = snap
        .cards
        .iter()
        .map(|c| c.row.id)
        .filter(|id| kept.contains(id))
        .collect();
    (in_queue_order, closure, drawing)
}

/// Every row `id` waits on, transitively, in the order first met.
pub fn closure(index: &HashMap<u64, &Card>, id: u64) -> Vec<u64> {
    let mut out = Vec::new();
    let mut seen: HashSet<u64> = HashSet::from([id]);
    let mut stack = vec![id];
    while let Some(next) = stack.pop() {
        for dep in index.get(&next).map_or(&[][..], |c| &c.row.after[..]) {
            if index.contains_key(dep) && seen.insert(*dep) {
                out.push(*dep);
                stack.push(*dep);
            }
        }
    }
    out
}

/// The drawing of `snap` with `chosen` highlighted.
pub fn draw(snap: &Snapshot, chosen: Option<u64>) -> Drawing {
    let (ids, closure, mut drawing) = select(snap, chosen);
    let index: HashMap<u64, &Card> = snap.cards.iter().map(|c| (c.row.id, c)).collect();
    let set: HashSet<u64> = ids.iter().copied().collect();
    let deps = |id: u64| -> Vec<u64> {
        index.get(&id).map_or_else(Vec::new, |c| {
            c.row
                .after
                .iter()
                .copied()
                .filter(|d| set.contains(d))
                .collect()
        })
    };
    let edges: Vec<(u64, u64)> = ids
        .iter()
        .flat_map(|id| deps(*id).into_iter().map(move |d| (d, *id)))
        .collect();
    let linked: HashSet<u64> = edges.iter().flat_map(|(a, b)| [*a, *b]).collect();
    let layers = order_layers(layer_lists(&ids, &linked, &deps), &edges);
    let isolated: Vec<u64> = ids
        .iter()
        .copied()
        .filter(|id| !linked.contains(id))
        .collect();
    let mut place: HashMap<u64, (usize, usize)> = HashMap::new();
    for (l, layer) in layers.iter().enumerate() {
        for (i, id) in layer.iter().enumerate() {
            place.insert(*id, (PAD + l * (W + GAP_X), PAD + i * (H + GAP_Y)));
        }
    }
    let tall = layers.iter().map(Vec::len).max().unwrap_or(0);
    let cols = layers.len().max(5);
    let grid_top = PAD + tall * (H + GAP_Y) + if tall > 0 { 28 } else { 20 };
    for (n, id) in isolated.iter().enumerate() {
        place.insert(
            *id,
            (
                PAD + (n % cols) * (W + GAP_X),
                grid_top + (n / cols) * (H + GAP_Y),
            ),
        );
    }
    let width = PAD * 2 + cols * (W + GAP_X);
    let height = grid_top + isolated.len().div_ceil(cols) * (H + GAP_Y) + PAD;
    let lit: HashSet<u64> = chosen.into_iter().chain(closure).collect();
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" role=\"img\" aria-label=\"dependency graph\">"
    );
    for (from, to) in &edges {
        svg.push_str(&edge(place[from], place[to], &lit, (*from, *to)));
    }
    if !isolated.is_empty() {
        svg.push_str(&format!(
            "<text x=\"{PAD}\" y=\"{}\" class=\"caption\">rows no drawn row waits on and that wait on none</text>",
            grid_top - 8
        ));
    }
    for id in &ids {
        if let Some(card) = index.get(id) {
            svg.push_str(&node(card, place[id], chosen, &lit));
        }
    }
    svg.push_str("</svg>");
    drawing.svg = svg;
    drawing.drawn = ids;
    drawing
}

/// Each linked row's layer: one past the deepest row it waits on.
fn layer_lists(
    ids: &[u64],
    linked: &HashSet<u64>,
    deps: &dyn Fn(u64) -> Vec<u64>,
) -> Vec<Vec<u64>> {
    let mut depth: HashMap<u64, usize> = HashMap::new();
    for id in ids.iter().filter(|id| linked.contains(id)) {
        // Iterative depth-first: a chain of thousands of rows must not exhaust the stack. The
        // core refuses cycles; a row met again while open counts as depth 0.
        let mut stack: Vec<(u64, bool)> = vec![(*id, false)];
        let mut open: HashSet<u64> = HashSet::new();
        while let Some((n, done)) = stack.pop() {
            if depth.contains_key(&n) {
                continue;
            }
            let ds = deps(n);
            if done {
                let d = ds.iter().filter_map(|d| depth.get(d)).map(|d| d + 1).max();
                depth.insert(n, d.unwrap_or(0));
                continue;
            }
            if !open.insert(n) {
                depth.insert(n, 0);
                continue;
            }
            stack.push((n, true));
            for d in ds
                .into_iter()
                .filter(|d| !depth.contains_key(d) && !open.contains(d))
            {
                stack.push((d, false));
            }
        }
    }
    let layers = depth.values().max().map_or(0, |m| m + 1);
    let mut out = vec![Vec::new(); layers];
    for id in ids {
        if let Some(d) = depth.get(id) {
            out[*d].push(*id);
        }
    }
    out
}

/// Orders each layer by the mean position of its neighbours in the layer before (then the
/// layer after), two sweeps each way: fewer crossings, shorter edges.
fn order_layers(mut layers: Vec<Vec<u64>>, edges: &[(u64, u64)]) -> Vec<Vec<u64>> {
    let mut ins: HashMap<u64, Vec<u64>> = HashMap::new();
    let mut outs: HashMap<u64, Vec<u64>> = HashMap::new();
    for (from, to) in edges {
        ins.entry(*to).or_default().push(*from);
        outs.entry(*from).or_default().push(*to);
    }
    for _ in 0..2 {
        for l in 1..layers.len() {
            let pos = positions(&layers[..l]);
            sort_by_mean(&mut layers[l], &ins, &pos);
        }
        for l in (0..layers.len().saturating_sub(1)).rev() {
            let pos = positions(&layers[l + 1..]);
            sort_by_mean(&mut layers[l], &outs, &pos);
        }
    }
    layers
}

fn positions(layers: &[Vec<u64>]) -> HashMap<u64, usize> {
    layers
        .iter()
        .flat_map(|l| l.iter().enumerate().map(|(i, id)| (*id, i)))
        .collect()
}

fn sort_by_mean(layer: &mut [u64], near: &HashMap<u64, Vec<u64>>, pos: &HashMap<u64, usize>) {
    let key: HashMap<u64, usize> = layer
        .iter()
        .enumerate()
        .map(|(i, id)| {
            let ps: Vec<usize> = near
                .get(id)
                .map_or(&[][..], Vec::as_slice)
                .iter()
                .filter_map(|n| pos.get(n))
                .copied()
                .collect();
            // Scaled by 2 so a row with no neighbour keeps its place between the others.
            let k = if ps.is_empty() {
                i * 2
            } else {
                ps.iter().sum::<usize>() * 2 / ps.len()
            };
            (*id, k)
        })
        .collect();
    layer.sort_by_key(|id| key[id]);
}

fn edge(from: (usize, usize), to: (usize, usize), lit: &HashSet<u64>, ids: (u64, u64)) -> String {
    let (x1, y1) = (from.0 + W, from.1 + H / 2);
    let (x2, y2) = (to.0, to.1 + H / 2);
    let class = match (lit.is_empty(), lit.contains(&ids.0) && lit.contains(&ids.1)) {
        (true, _) => "edge",
        (false, true) => "edge hl",
        (false, false) => "edge dim",
    };
    format!(
        "<path class=\"{class}\" d=\"M{x1} {y1} C{} {y1} {} {y2} {x2} {y2}\"/>",
        x1 + GAP_X / 2,
        x2.saturating_sub(GAP_X / 2)
    )
}

fn node(card: &Card, (x, y): (usize, usize), chosen: Option<u64>, lit: &HashSet<u64>) -> String {
    let row = &card.row;
    let mark = match chosen {
        Some(c) if c == row.id => " chosen",
        Some(_) if lit.contains(&row.id) => " dep",
        Some(_) => " dim",
        None => "",
    };
    let short: String = if row.piece.chars().count() > NODE_CHARS {
        let mut s: String = row.piece.chars().take(NODE_CHARS - 1).collect();
        s.push('…');
        s
    } else {
        row.piece.clone()
    };
    format!(
        "<a href=\"/graph?row={id}\"><g class=\"node {}{mark}\" id=\"n-{id}\" transform=\"translate({x} {y})\"><title>#{id} {} ({})</title><rect width=\"{W}\" height=\"{H}\" rx=\"5\"/><rect class=\"bar\" width=\"5\" height=\"{H}\"/><text x=\"12\" y=\"21\">#{id} {}</text></g></a>",
        status_class(row.status),
        escape::line(&row.piece),
        row.status.as_str(),
        escape::line(&short),
        id = row.id,
    )
}

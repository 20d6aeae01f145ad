import AreaWatchCore

/// The page's look: the WatchMe class colours and one inline style sheet.
enum HTMLStyle {
    /// The colours the app paints its three labels with.
    static func colour(_ c: SafetyClass) -> String {
        switch c {
        case .safe: return "#2e9e44"
        case .medium: return "#f39c12"
        case .dangerous: return "#d62728"
        }
    }

    /// Map background where no cell is reported (no incident nearby: safe with zero counts).
    static let emptyMap = "#eef1f4"
    static let ink = "#1f2933"
    static let muted = "#616e7c"
    static let bar = "#4c6a92"

    /// System fonts only: the page must not fetch anything. Contains no `<` or `&`, so the
    /// page stays parseable as XML.
    static let css = """
        :root { --ink: \(ink); --muted: \(muted); --line: #d9dee4; --band: #f6f8fa; }
        * { box-sizing: border-box; }
        body { margin: 0; background: #fff; color: var(--ink);
          font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
        main { max-width: 1180px; margin: 0 auto; padding: 24px 28px 40px; }
        header { border-bottom: 3px solid var(--ink); padding-bottom: 12px; margin-bottom: 8px; }
        .banner { background: #fff4d6; border: 2px solid #d9a400; border-radius: 4px; padding: 10px 14px;
          margin: 0 0 14px; font-weight: 600; }
        h1 { font-size: 26px; margin: 0 0 4px; letter-spacing: -0.01em; }
        h1 .asof { font-weight: 400; color: var(--muted); font-size: 20px; }
        h2 { font-size: 19px; margin: 36px 0 10px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
        h3 { font-size: 15px; margin: 20px 0 8px; }
        p { margin: 6px 0; }
        .lede, .note { color: var(--muted); }
        .note { font-size: 12.5px; }
        nav { margin-top: 10px; font-size: 13px; }
        nav a { color: var(--ink); text-decoration: none; border: 1px solid var(--line); border-radius: 12px;
          padding: 2px 10px; margin-right: 4px; display: inline-block; }
        nav a:hover { background: var(--band); }
        .cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(160px, 1fr)); gap: 12px; margin: 14px 0 18px; }
        .card { border: 1px solid var(--line); border-radius: 6px; padding: 10px 14px; background: var(--band); }
        .card .k { font-size: 12px; color: var(--muted); text-transform: uppercase; letter-spacing: 0.04em; }
        .card .v { font-size: 24px; font-weight: 650; font-variant-numeric: tabular-nums; }
        .card .d { font-size: 12.5px; color: var(--muted); }
        .card.safe { border-left: 5px solid #2e9e44; }
        .card.medium { border-left: 5px solid #f39c12; }
        .card.dangerous { border-left: 5px solid #d62728; }
        dl.facts { display: grid; grid-template-columns: 210px 1fr; gap: 5px 16px; margin: 0; }
        dl.facts dt { color: var(--muted); }
        dl.facts dd { margin: 0; overflow-wrap: anywhere; }
        .scroll { overflow-x: auto; margin: 6px 0 4px; }
        table { border-collapse: collapse; font-size: 13px; min-width: 50%; }
        th, td { padding: 4px 10px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
        th { background: var(--band); font-weight: 600; white-space: nowrap; border-bottom: 2px solid var(--line); }
        td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
        td.mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 12.5px; }
        td.path { overflow-wrap: anywhere; max-width: 420px; }
        tbody tr:nth-child(even) { background: #fbfcfd; }
        tfoot td { font-weight: 600; border-top: 2px solid var(--line); }
        .badge { display: inline-block; min-width: 74px; text-align: center; border-radius: 10px; padding: 0 8px;
          font-size: 12px; font-weight: 600; color: #fff; }
        .badge.safe { background: #2e9e44; }
        .badge.medium { background: #f39c12; color: #222; }
        .badge.dangerous { background: #d62728; }
        .none { color: var(--muted); font-style: italic; }
        figure { margin: 8px 0; }
        figure svg { display: block; width: 100%; height: auto; }
        figcaption { color: var(--muted); font-size: 12.5px; margin-top: 6px; }
        svg text { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; fill: var(--ink); }
        svg .halo { paint-order: stroke; stroke: #fff; stroke-width: 3px; stroke-linejoin: round; }
        footer { margin-top: 40px; padding-top: 10px; border-top: 1px solid var(--line); color: var(--muted); font-size: 12.5px; }
        @media print { main { max-width: none; padding: 0; } nav { display: none; } h2 { break-after: avoid; } }

        """
}

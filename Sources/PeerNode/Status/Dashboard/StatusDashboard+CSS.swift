extension StatusDashboard {
    /// One column on a phone, a grid of cards on a desktop; no web fonts, no images.
    static let css = #"""
    :root { --bg: #f5f6f8; --card: #fff; --ink: #1d2430; --muted: #667085; --ok: #1a7f37; --warn: #b54708; --bad: #c4320a; --bar: #3b6fd8; }
    * { box-sizing: border-box; }
    body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; background: var(--bg); color: var(--ink); }
    header { display: flex; flex-wrap: wrap; align-items: baseline; gap: .25rem 1rem; padding: 1rem; }
    header h1 { margin: 0; font-size: 1.3rem; }
    header form { margin-left: auto; }
    main { display: grid; grid-template-columns: 1fr; gap: 1rem; padding: 0 1rem 1rem; }
    @media (min-width: 900px) { main { grid-template-columns: repeat(3, 1fr); } .wide { grid-column: 1 / -1; } }
    section { background: var(--card); border-radius: 10px; padding: 1rem; box-shadow: 0 1px 2px rgba(0,0,0,.08); min-width: 0; overflow-x: auto; }
    h2 { margin: 0 0 .6rem; font-size: 1.05rem; }
    .muted { color: var(--muted); margin: 0; font-size: .85rem; word-break: break-all; }
    .tag { font-size: .75rem; padding: .1rem .45rem; border-radius: 99px; background: #e4e7ec; vertical-align: middle; }
    .tag.ok, li.ok::before { color: var(--ok); } .tag.warning, li.warning::before { color: var(--warn); } .tag.fatal, li.fatal::before { color: var(--bad); }
    ul { list-style: none; margin: 0; padding: 0; }
    li { padding: .2rem 0; } li::before { content: "●"; margin-right: .4rem; }
    #attention li { color: var(--bad); }
    dl.figures { display: grid; grid-template-columns: auto 1fr; gap: .2rem .8rem; margin: 0 0 .6rem; }
    dt { color: var(--muted); } dd { margin: 0; text-align: right; font-variant-numeric: tabular-nums; }
    .meter { height: .6rem; background: #e4e7ec; border-radius: 99px; overflow: hidden; }
    .meter div { height: 100%; width: 0; background: var(--bar); }
    table { width: 100%; border-collapse: collapse; font-variant-numeric: tabular-nums; }
    th, td { text-align: left; padding: .3rem .4rem; border-bottom: 1px solid #eaecf0; white-space: nowrap; }
    td.num, th.num { text-align: right; }
    svg { width: 100%; height: auto; max-height: 260px; display: block; }
    #peer-max { margin-top: .4rem; }
    svg .bar { fill: var(--bar); } svg text { font-size: 11px; fill: var(--muted); }
    button { font: inherit; padding: .35rem .8rem; border-radius: 6px; border: 1px solid #c9ced6; background: #fff; cursor: pointer; }
    body.login main { display: block; max-width: 26rem; margin: 10vh auto; background: var(--card); padding: 1.5rem; border-radius: 10px; }
    body.login input { width: 100%; font: inherit; padding: .5rem; margin: .5rem 0; }
    .error { color: var(--bad); }
    """#
}

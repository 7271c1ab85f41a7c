extension StatusDashboard {
    /// The page's skeleton; `dashboard.js` fills each section from the API.
    static let html = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>peernode</title>
    <link rel="stylesheet" href="/dashboard.css">
    <link rel="icon" href="data:,">
    <script src="/dashboard.js" defer></script>
    </head>
    <body>
    <header>
    <h1>peernode <span id="network" class="tag"></span></h1>
    <p id="identity" class="muted"></p>
    <p id="updated" class="muted">loading…</p>
    <form method="post" action="/logout"><button type="submit">Log out</button></form>
    </header>
    <main>
    <section id="health-section">
    <h2>Health <span id="health-state" class="tag"></span></h2>
    <ul id="attention"></ul>
    <ul id="checks"></ul>
    </section>
    <section id="liquidity-section">
    <h2>Liquidity</h2>
    <dl class="figures">
    <dt>On chain (confirmed)</dt><dd id="onchain-confirmed"></dd>
    <dt>On chain (unconfirmed)</dt><dd id="onchain-unconfirmed"></dd>
    <dt>Lockable now</dt><dd id="onchain-lockable"></dd>
    <dt>Lightning</dt><dd id="lightning-balance"></dd>
    <dt>Offer range</dt><dd id="offer-range"></dd>
    </dl>
    <div class="meter"><div id="liquidity-meter"></div></div>
    <p id="liquidity-note" class="muted"></p>
    </section>
    <section id="limits-section">
    <h2>Exposure</h2>
    <dl class="figures">
    <dt>Exposure</dt><dd id="exposure"></dd>
    <dt>Swaps running</dt><dd id="swaps-running"></dd>
    </dl>
    <div class="meter"><div id="exposure-meter"></div></div>
    <table><thead><tr><th>Counterparty</th><th class="num">Exposure</th><th class="num">Swaps</th></tr></thead><tbody id="limits-peers"></tbody></table>
    <p id="peer-max" class="muted"></p>
    </section>
    <section id="live-section" class="wide">
    <h2>In flight <span id="live-count" class="tag"></span></h2>
    <table><thead><tr><th>Swap</th><th>Role</th><th>Stage</th><th class="num">Amount</th><th class="num">Deadline</th></tr></thead>
    <tbody id="live-swaps"></tbody></table>
    </section>
    <section id="earnings-section" class="wide">
    <h2>Earnings per day</h2>
    <dl class="figures">
    <dt>Earned in all</dt><dd id="earned-total"></dd>
    <dt>Net in all</dt><dd id="net-total"></dd>
    </dl>
    <svg id="earnings-chart" role="img" aria-label="service fees earned per day" viewBox="0 0 600 220" preserveAspectRatio="xMinYMid meet"></svg>
    </section>
    <section id="recent-section" class="wide">
    <h2>Recent swaps</h2>
    <table><thead><tr><th>Swap</th><th>Role</th><th>Outcome</th><th class="num">Amount</th><th class="num">Fee</th><th class="num">Net</th></tr></thead>
    <tbody id="recent-swaps"></tbody></table>
    </section>
    </main>
    </body>
    </html>
    """#
}

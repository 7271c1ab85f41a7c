extension StatusDashboard {
    /// Polls the six JSON endpoints every 5 s with the session cookie and redraws. Numbers
    /// are shown as the API gives them (integers of sat, grouped by thousands) and each
    /// figure keeps the API's raw value in `data-value`, so a test can compare the two.
    /// A 401 (the session ran out) goes back to the login form.
    static let javascript = #"""
    "use strict";
    const POLL_MS = 5000;
    const $ = (id) => document.getElementById(id);
    const sat = (n) => (n === null || n === undefined) ? "–" : Number(n).toLocaleString("en-US") + " sat";
    const msatAsSat = (n) => (n === null || n === undefined) ? "–" : (n / 1000).toLocaleString("en-US", { maximumFractionDigits: 3 }) + " sat";
    const short = (id) => id.length > 12 ? id.slice(0, 8) + "…" : id;

    function figure(id, value, text) {
      const el = $(id);
      el.textContent = text;
      el.dataset.value = value === null || value === undefined ? "" : String(value);
    }

    function cell(row, text, cls) {
      const td = document.createElement("td");
      td.textContent = text;
      if (cls) td.className = cls;
      row.appendChild(td);
      return td;
    }

    function fill(tbodyId, rows, build, empty) {
      const body = $(tbodyId);
      body.replaceChildren();
      if (rows.length === 0) {
        const tr = document.createElement("tr");
        const td = cell(tr, empty, "muted");
        td.colSpan = 6;
        body.appendChild(tr);
        return;
      }
      for (const row of rows) {
        const tr = document.createElement("tr");
        build(tr, row);
        body.appendChild(tr);
      }
    }

    function meter(id, used, ceiling) {
      const share = ceiling > 0 ? Math.min(100, Math.max(0, (used / ceiling) * 100)) : 0;
      $(id).style.width = share.toFixed(1) + "%";
    }

    async function get(path) {
      const response = await fetch(path, { credentials: "same-origin", cache: "no-store" });
      if (response.status === 401) {
        window.location.assign("/login");
        throw new Error("logged out");
      }
      if (!response.ok) throw new Error(path + ": HTTP " + response.status);
      return response.json();
    }

    function drawHealth(health) {
      const state = $("health-state");
      state.textContent = health.ok ? "ok" : "needs attention";
      state.className = "tag " + (health.ok ? "ok" : "fatal");
      const attention = $("attention");
      attention.replaceChildren(...health.attention.map((item) => {
        const li = document.createElement("li");
        li.className = "fatal";
        li.textContent = item.detail;
        return li;
      }));
      const checks = $("checks");
      checks.replaceChildren(...health.checks.map((check) => {
        const li = document.createElement("li");
        li.className = check.status;
        li.dataset.check = check.name;
        li.textContent = check.name + ": " + check.detail + (check.fix ? " (" + check.fix + ")" : "");
        return li;
      }));
    }

    function drawStatus(status, offers) {
      $("network").textContent = status.network;
      $("identity").textContent = status.pubky + (status.provider ? " · provider" : "");
      figure("onchain-confirmed", status.wallet.confirmed_sat, sat(status.wallet.confirmed_sat));
      // Lockable may exceed the confirmed balance: a lock may spend the wallet's own
      // unconfirmed change, so the unconfirmed part is shown beside it.
      figure("onchain-unconfirmed", status.wallet.unconfirmed_sat, sat(status.wallet.unconfirmed_sat));
      figure("onchain-lockable", offers.liquidity_sat, sat(offers.liquidity_sat));
      const lightning = status.lightning ? status.lightning.balance_sat : null;
      figure("lightning-balance", lightning, sat(lightning));
      const range = offers.offer ? offers.offer : offers.terms;
      figure("offer-range", range ? range.min_amount_sat + "-" + range.max_amount_sat : "",
             range ? sat(range.min_amount_sat) + " to " + sat(range.max_amount_sat) : "no offer");
      const maximum = offers.terms ? offers.terms.max_amount_sat : 0;
      meter("liquidity-meter", offers.liquidity_sat, maximum);
      $("liquidity-note").textContent = offers.provider
        ? (offers.offer ? "lockable now against the largest swap offered" : "below the offer's minimum: no offer is made")
        : "not a provider";
    }

    function drawLimits(limits) {
      const overall = limits.overall;
      figure("exposure", overall.exposure_sat, sat(overall.exposure_sat) + " of " + sat(overall.max_exposure_sat));
      figure("swaps-running", overall.swaps, overall.swaps + " of " + overall.max_swaps);
      meter("exposure-meter", overall.exposure_sat, overall.max_exposure_sat);
      $("peer-max").textContent = "each counterparty at most " + sat(limits.per_peer_max.exposure_sat) + " in "
        + limits.per_peer_max.swaps + " swaps";
      fill("limits-peers", limits.peers, (tr, peer) => {
        cell(tr, peer.peer_name || short(peer.peer));
        cell(tr, sat(peer.exposure_sat), "num");
        cell(tr, String(peer.swaps), "num");
      }, "no counterparty has a swap running");
    }

    function drawSwaps(swaps) {
      $("live-count").textContent = String(swaps.live.length);
      $("live-count").dataset.value = String(swaps.live.length);
      fill("live-swaps", swaps.live, (tr, swap) => {
        tr.dataset.swap = swap.id;
        cell(tr, short(swap.id));
        cell(tr, swap.role);
        cell(tr, swap.stage);
        cell(tr, sat(swap.amount_sat), "num").dataset.value = String(swap.amount_sat);
        cell(tr, swap.blocks_left === null ? "–" : swap.blocks_left + " blocks (height " + swap.timeout_height + ")", "num");
      }, "no swap in flight");
      fill("recent-swaps", swaps.recent, (tr, swap) => {
        tr.dataset.swap = swap.id;
        cell(tr, short(swap.id));
        cell(tr, swap.role);
        cell(tr, swap.outcome);
        cell(tr, sat(swap.amount_sat), "num");
        cell(tr, sat(swap.accounting.service_fee_sat), "num");
        cell(tr, msatAsSat(swap.accounting.net_msat), "num");
      }, "no swap has ended yet");
    }

    const SVG = "http://www.w3.org/2000/svg";
    function drawEarnings(earnings) {
      figure("earned-total", earnings.total.earned_sat, sat(earnings.total.earned_sat));
      figure("net-total", earnings.total.net_msat, msatAsSat(earnings.total.net_msat));
      const chart = $("earnings-chart");
      chart.replaceChildren();
      const days = earnings.days.slice(-30);
      const width = 600, height = 220, top = 16, bottom = 24;
      const most = Math.max(1, ...days.map((d) => d.earned_sat));
      // At least 14 slots, so one day's bar stays a bar and not the whole chart.
      const slot = width / Math.max(days.length, 14);
      days.forEach((day, index) => {
        const barHeight = Math.max(2, ((height - top - bottom) * day.earned_sat) / most);
        const rect = document.createElementNS(SVG, "rect");
        rect.setAttribute("class", "bar");
        rect.setAttribute("x", String(index * slot + slot * 0.15));
        rect.setAttribute("width", String(slot * 0.7));
        rect.setAttribute("y", String(height - bottom - barHeight));
        rect.setAttribute("height", String(barHeight));
        rect.dataset.day = day.day;
        rect.dataset.value = String(day.earned_sat);
        const title = document.createElementNS(SVG, "title");
        title.textContent = day.day + ": " + sat(day.earned_sat) + " earned, " + day.swaps + " swaps";
        rect.appendChild(title);
        chart.appendChild(rect);
        const label = document.createElementNS(SVG, "text");
        label.setAttribute("x", String(index * slot + slot / 2));
        label.setAttribute("y", String(height - 6));
        label.setAttribute("text-anchor", "middle");
        label.textContent = day.day.slice(5);
        chart.appendChild(label);
        const value = document.createElementNS(SVG, "text");
        value.setAttribute("x", String(index * slot + slot / 2));
        value.setAttribute("y", String(height - bottom - barHeight - 4));
        value.setAttribute("text-anchor", "middle");
        value.textContent = String(day.earned_sat);
        chart.appendChild(value);
      });
    }

    async function refresh() {
      try {
        const [health, status, swaps, limits, offers, earnings] = await Promise.all([
          get("/api/health"), get("/api/status"), get("/api/swaps"), get("/api/limits"), get("/api/offers"), get("/api/earnings"),
        ]);
        drawHealth(health);
        drawStatus(status, offers);
        drawLimits(limits);
        drawSwaps(swaps);
        drawEarnings(earnings);
        $("updated").textContent = "updated " + new Date().toLocaleTimeString("en-GB") + (status.tip_height !== null ? " · height " + status.tip_height : "");
        document.body.dataset.loaded = "true";
      } catch (error) {
        $("updated").textContent = "cannot update: " + error.message;
      }
    }

    document.addEventListener("DOMContentLoaded", () => {
      refresh();
      setInterval(refresh, POLL_MS);
    });
    """#
}

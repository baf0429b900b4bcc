/**
 * Writes the demo's chart as a plain SVG string: one panel per caller, tokens remaining over time,
 * each request a dot (allowed) or a cross (rejected with 429), phases shaded behind. No chart library.
 */

/** One response, as the demo saw it. */
export interface Sample {
  /** Seconds since the demo started, when the response arrived. */
  t: number;
  status: number;
  /** `extensions.cost.requestedQueryCost` (0 when absent). */
  cost: number;
  /** `extensions.cost.throttleStatus.currentlyAvailable` after the request, or null when absent. */
  remaining: number | null;
  /** `Retry-After` in seconds on a 429, else null. */
  retryAfter: number | null;
}

export interface CallerSeries {
  name: string;
  tier: string;
  capacity: number;
  refillPerSecond: number;
  samples: Sample[];
}

export interface Phase {
  name: string;
  /** Seconds since the demo started. */
  start: number;
  end: number;
}

export interface ChartInput {
  title: string;
  series: CallerSeries[];
  phases: Phase[];
}

const WIDTH = 900;
const PANEL_HEIGHT = 200;
const PANEL_GAP = 56;
const MARGIN = { top: 86, right: 28, bottom: 46, left: 64 };
const COLORS = ['#2563eb', '#059669', '#7c3aed', '#d97706'];
const REJECTED = '#dc2626';
const PHASE_FILL = ['#f1f5f9', '#ffffff'];

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&${{ '<': 'lt', '>': 'gt', '&': 'amp', '"': 'quot', "'": 'apos' }[c]};`);
}

function num(value: number): string {
  return String(Math.round(value * 10) / 10);
}

/** A step of 1, 2 or 5 × 10^n giving about `count` ticks over `span`. */
function niceStep(span: number, count: number): number {
  const raw = span / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw);
  return step ?? 10 * power;
}

/**
 * The line through a caller's samples, as [seconds, tokens]: between two responses the bucket
 * refills at the tier's rate (flat once full); at each response it drops or rises to the measured
 * value. It starts at the first response, at the level before that request was charged.
 */
export function budgetLine(series: CallerSeries): [number, number][] {
  const measured = series.samples.filter((s): s is Sample & { remaining: number } => s.remaining !== null);
  const first = measured[0];
  if (!first) return [];
  const points: [number, number][] = [
    [first.t, Math.min(series.capacity, first.remaining + (first.status === 200 ? first.cost : 0))],
  ];
  let [t, level] = points[0] as [number, number];
  for (const sample of measured) {
    if (sample.t > t && series.refillPerSecond > 0 && level < series.capacity) {
      const fullAt = t + (series.capacity - level) / series.refillPerSecond;
      if (fullAt < sample.t) points.push([fullAt, series.capacity], [sample.t, series.capacity]);
      else points.push([sample.t, level + (sample.t - t) * series.refillPerSecond]);
    } else if (sample.t > t) {
      points.push([sample.t, level]);
    }
    points.push([sample.t, sample.remaining]);
    [t, level] = [sample.t, sample.remaining];
  }
  return points;
}

/** The chart as an SVG document. */
export function renderBudgetChart(input: ChartInput): string {
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const height = MARGIN.top + input.series.length * (PANEL_HEIGHT + PANEL_GAP) - PANEL_GAP + MARGIN.bottom;
  const lastT = Math.max(
    1,
    ...input.phases.map((p) => p.end),
    ...input.series.flatMap((s) => s.samples.map((x) => x.t)),
  );
  const x = (t: number): number => MARGIN.left + (t / lastT) * plotWidth;
  const xStep = niceStep(lastT, 10);
  const out: string[] = [];

  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" ` +
      `font-family="system-ui, -apple-system, 'Segoe UI', sans-serif" font-size="12" role="img">`,
    `<title>${escapeXml(input.title)}</title>`,
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    `<text x="${MARGIN.left}" y="26" font-size="17" font-weight="600" fill="#0f172a">${escapeXml(input.title)}</text>`,
  );

  // Legend.
  const legendY = 50;
  out.push(
    `<g class="legend" fill="#334155">`,
    `<circle cx="${MARGIN.left + 5}" cy="${legendY - 4}" r="4" fill="#334155"/>`,
    `<text x="${MARGIN.left + 14}" y="${legendY}">request allowed (tokens left after it)</text>`,
    `<path d="M${MARGIN.left + 265} ${legendY - 8}l8 8m0 -8l-8 8" stroke="${REJECTED}" stroke-width="2.2"/>`,
    `<text x="${MARGIN.left + 280}" y="${legendY}">rejected: 429 + Retry-After</text>`,
    `<line x1="${MARGIN.left + 460}" y1="${legendY - 4}" x2="${MARGIN.left + 484}" y2="${legendY - 4}" stroke="#334155" stroke-width="2"/>`,
    `<text x="${MARGIN.left + 490}" y="${legendY}">tokens remaining (refilling between requests)</text>`,
    `</g>`,
  );

  input.series.forEach((series, index) => {
    const top = MARGIN.top + index * (PANEL_HEIGHT + PANEL_GAP);
    const bottom = top + PANEL_HEIGHT;
    // A capacity of 0 means no response carried a throttle status (the store was unavailable).
    const scale = series.capacity > 0 ? series.capacity : 1;
    const y = (tokens: number): number => bottom - (Math.max(0, tokens) / scale) * PANEL_HEIGHT;
    const color = COLORS[index % COLORS.length] as string;
    const rejected = series.samples.filter((s) => s.status === 429).length;

    out.push(`<g class="panel">`);
    // Phase bands, then their labels: each starts at its phase, or after the previous label when
    // the phase is too narrow to hold it.
    input.phases.forEach((phase, p) => {
      out.push(
        `<rect x="${num(x(phase.start))}" y="${top}" width="${num(x(phase.end) - x(phase.start))}" height="${PANEL_HEIGHT}" fill="${PHASE_FILL[p % 2]}"/>`,
        `<line x1="${num(x(phase.start))}" y1="${top}" x2="${num(x(phase.start))}" y2="${bottom}" stroke="#94a3b8" stroke-dasharray="3 3"/>`,
      );
    });
    let labelEnd = 0;
    for (const phase of input.phases) {
      const labelX = Math.max(x(phase.start) + 5, labelEnd + 10);
      labelEnd = labelX + phase.name.length * 6.5;
      out.push(`<text x="${num(labelX)}" y="${top + 14}" fill="#64748b">${escapeXml(phase.name)}</text>`);
    }
    for (const fraction of [0, 0.25, 0.5, 0.75, 1]) {
      const tokens = scale * fraction;
      out.push(
        `<line x1="${MARGIN.left}" y1="${num(y(tokens))}" x2="${MARGIN.left + plotWidth}" y2="${num(y(tokens))}" stroke="#cbd5e1" stroke-width="${fraction === 0 ? 1.2 : 0.6}"/>`,
        `<text x="${MARGIN.left - 8}" y="${num(y(tokens) + 4)}" text-anchor="end" fill="#475569">${num(tokens)}</text>`,
      );
    }
    for (let t = 0; t <= lastT + 1e-9; t += xStep) {
      out.push(`<line x1="${num(x(t))}" y1="${bottom}" x2="${num(x(t))}" y2="${bottom + 5}" stroke="#94a3b8"/>`);
      out.push(`<text x="${num(x(t))}" y="${bottom + 18}" text-anchor="middle" fill="#475569">${num(t)} s</text>`);
    }
    out.push(
      `<text x="${MARGIN.left}" y="${top - 10}" font-size="13" font-weight="600" fill="${color}" xml:space="preserve">` +
        `${escapeXml(series.name)} · ${escapeXml(series.tier)} tier · ${num(series.capacity)} tokens, refills ${num(series.refillPerSecond)}/s` +
        `<tspan font-weight="400" fill="#475569"> · ${series.samples.length} requests, ${rejected} rejected</tspan></text>`,
      `<text transform="translate(${MARGIN.left - 46} ${top + PANEL_HEIGHT / 2}) rotate(-90)" text-anchor="middle" fill="#475569">tokens</text>`,
      `</g>`,
    );

    const points = budgetLine(series);
    out.push(`<g class="series" data-caller="${escapeXml(series.name)}">`);
    if (points.length > 0) {
      const d = points.map(([t, v], i) => `${i === 0 ? 'M' : 'L'}${num(x(t))} ${num(y(v))}`).join(' ');
      out.push(`<path d="${d}" fill="none" stroke="${color}" stroke-width="2" stroke-linejoin="round"/>`);
    }
    for (const sample of series.samples) {
      if (sample.remaining === null) continue;
      const cx = num(x(sample.t));
      const cy = num(y(sample.remaining));
      if (sample.status === 429) {
        out.push(
          `<path class="rejected" d="M${cx} ${cy}m-5 -5l10 10m0 -10l-10 10" stroke="${REJECTED}" stroke-width="2.2">` +
            `<title>${num(sample.t)} s: 429, cost ${num(sample.cost)}, ${num(sample.remaining)} left, Retry-After ${sample.retryAfter ?? '?'} s</title></path>`,
        );
      } else {
        out.push(
          `<circle class="allowed" cx="${cx}" cy="${cy}" r="3.2" fill="${color}">` +
            `<title>${num(sample.t)} s: ${sample.status}, cost ${num(sample.cost)}, ${num(sample.remaining)} left</title></circle>`,
        );
      }
    }
    out.push(`</g>`);
  });

  out.push(`</svg>`);
  return `${out.join('\n')}\n`;
}

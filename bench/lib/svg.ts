import { formatGoal, formatRatio, type RunResult } from './report.js';

const WIDTH = 1000;
const LABEL = 390;
const PLOT = 360;
const ROW = 22;
const HEAD = 28;

/** Long variant names are cut to fit the label column (the tables keep them whole). */
function fitLabel(text: string, max = 60): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function escapeXml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}

/**
 * A horizontal bar chart of every ratio in the run, one group per section: the bar is the ratio to
 * the section's baseline (the grey line at 1×), the dashed tick is the goal. Green bars meet their
 * goal, red bars fall short, blue bars have no goal.
 */
export function renderSvg(run: RunResult): string {
  const charted = run.sections
    .map((section) => ({ section, rows: section.rows.filter((row) => row.ratio && Number.isFinite(row.ratio.value)) }))
    .filter((group) => group.rows.length > 0);
  const largest = Math.max(
    1,
    ...charted.flatMap((group) => group.rows.map((row) => Math.max(row.ratio!.value, row.goal?.target ?? 0))),
  );
  const scaleMax = Math.min(4, Math.ceil(largest * 1.1 * 4) / 4);
  // A ratio below 0 (a difference to the baseline that came out negative) is drawn as no bar.
  const x = (ratio: number): number => LABEL + (Math.min(Math.max(ratio, 0), scaleMax) / scaleMax) * PLOT;

  const parts: string[] = [];
  let y = 54;
  for (const { section, rows } of charted) {
    parts.push(`<text x="12" y="${y + 16}" class="section">${escapeXml(section.title)}</text>`);
    y += HEAD;
    for (const row of rows) {
      const ratio = row.ratio!;
      const colour = row.met === undefined ? '#4a78c2' : row.met ? '#2e8b57' : '#c0392b';
      const end = x(ratio.value);
      parts.push(
        `<text x="${LABEL - 8}" y="${y + 15}" class="label" text-anchor="end">${escapeXml(fitLabel(row.variant))}</text>`,
      );
      parts.push(
        `<rect x="${LABEL}" y="${y + 4}" width="${(end - LABEL).toFixed(1)}" height="${ROW - 8}" fill="${colour}"/>`,
      );
      const clipped = ratio.value > scaleMax ? ' ▸' : '';
      const goal = row.goal ? ` (goal ${formatGoal(row.goal)})` : '';
      const textX = Math.max(end, row.goal ? x(row.goal.target) : 0) + 6;
      parts.push(
        `<text x="${textX.toFixed(1)}" y="${y + 15}" class="value">${escapeXml(`${formatRatio(ratio.value)} ${ratio.of}${clipped}${goal}`)}</text>`,
      );
      if (row.goal) {
        const gx = x(row.goal.target).toFixed(1);
        parts.push(`<line x1="${gx}" x2="${gx}" y1="${y + 1}" y2="${y + ROW - 1}" class="goal"/>`);
      }
      y += ROW;
    }
    y += 6;
  }
  const height = y + 30;
  const one = x(1).toFixed(1);
  const ticks: string[] = [];
  for (let tick = 0; tick <= scaleMax + 1e-9; tick += scaleMax > 2 ? 1 : 0.25) {
    const tx = x(tick).toFixed(1);
    ticks.push(
      `<text x="${tx}" y="${height - 12}" class="tick" text-anchor="middle">${tick.toFixed(2).replace(/\.?0+$/, '')}×</text>`,
    );
  }
  const { machine } = run;
  const subtitle = `${run.mode} run, ${run.startedAt.slice(0, 16).replace('T', ' ')} UTC · ${machine.nproc} × ${machine.cpuModel} · Node ${machine.node} · Redis ${machine.redis}`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="Helvetica, Arial, sans-serif">`,
    '<style>.section{font-size:13px;font-weight:bold}.label,.value{font-size:12px}.tick{font-size:11px;fill:#555}.goal{stroke:#111;stroke-width:2;stroke-dasharray:3 2}</style>',
    `<rect width="${WIDTH}" height="${height}" fill="#fff"/>`,
    `<text x="12" y="22" font-size="15" font-weight="bold">graphql-budget benchmarks: ratios to the side-by-side baseline</text>`,
    `<text x="12" y="40" font-size="11" fill="#555">${escapeXml(subtitle)} · dashed tick = goal</text>`,
    `<line x1="${one}" x2="${one}" y1="50" y2="${height - 26}" stroke="#999" stroke-width="1"/>`,
    ...parts,
    ...ticks,
    '</svg>',
    '',
  ].join('\n');
}

import type { Summary } from './stats.js';
import type { BenchReport, Row } from './types.js';

/** 3 significant digits below 1,000; whole numbers with separators above. */
export function fmt(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  if (abs >= 1000) return Math.round(value).toLocaleString('en-US');
  if (abs === 0) return '0';
  return Number(value.toPrecision(3)).toString();
}

function spread(summary: Summary): string {
  return summary.n > 1 ? ` [${fmt(summary.min)}–${fmt(summary.max)}]` : '';
}

function figure(summary: Summary, unit: string): string {
  return `${fmt(summary.median)} ${unit}${spread(summary)}`;
}

function ratioText(summary: Summary): string {
  return summary.n > 1 ? `${fmt(summary.median)}× [${fmt(summary.min)}–${fmt(summary.max)}]` : `${fmt(summary.median)}×`;
}

function cells(row: Row): string[] {
  return [
    row.label,
    figure(row.value, row.unit),
    row.baseline ? `${row.baseline.label}: ${fmt(row.baseline.value.median)} ${row.unit}${spread(row.baseline.value)}` : '—',
    row.ratio ? ratioText(row.ratio) : '—',
    row.target ? row.target.text : '—',
    row.pass === undefined ? '' : row.pass ? 'PASS' : 'FAIL',
  ];
}

/** The whole report as text: one block per benchmark, then its notes. */
export function renderTable(reports: readonly BenchReport[]): string {
  const header = ['measure', 'figure (median [min–max])', 'baseline (median [min–max])', 'ratio (median [min–max])', 'target', ''];
  const all = reports.flatMap((r) => r.rows.map(cells));
  const widths = header.map((h, i) => Math.max(h.length, ...all.map((c) => (c[i] as string).length)));
  const line = (c: string[]) => c.map((cell, i) => cell.padEnd(widths[i] as number)).join('  ').trimEnd();
  const out: string[] = [];
  for (const report of reports) {
    out.push('', `== ${report.title}  (${(report.durationMs / 1000).toFixed(1)} s)`);
    if (report.error) {
      out.push(`   ERROR: ${report.error}`);
      continue;
    }
    out.push(line(header), line(widths.map((w) => '-'.repeat(w))));
    for (const row of report.rows) out.push(line(cells(row)));
    const notes = [...report.notes, ...report.rows.filter((r) => r.note).map((r) => `${r.label}: ${r.note}`)];
    for (const note of notes) out.push(`   · ${note}`);
  }
  const checked = reports.flatMap((r) => r.rows).filter((r) => r.pass !== undefined);
  const passed = checked.filter((r) => r.pass).length;
  out.push('', `targets met: ${passed} of ${checked.length}${passed < checked.length ? ` (missed: ${checked.filter((r) => !r.pass).map((r) => `${r.bench}/${r.label}`).join('; ')})` : ''}`);
  return out.join('\n');
}

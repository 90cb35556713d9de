/** The benchmark's one table, as text. */
import { goalText, type Figure } from './figures.js';

const HEADERS = ['#', 'Figure', 'Latch', 'Baseline', 'Ratio', 'Goal', 'Met', 'Baseline is'];

/** formatValue writes a figure's value with the precision its unit deserves. */
export function formatValue(value: number, unit: string): string {
  if (!Number.isFinite(value)) return String(value);
  switch (unit) {
    case 'req/s':
    case 'ops/s':
    case 'MB/s':
      return `${Math.round(value)} ${unit}`;
    case 'ms':
      return `${value.toFixed(value < 10 ? 2 : 1)} ms`;
    case 'MiB':
      return `${value.toFixed(1)} MiB`;
    default:
      return `${value} ${unit}`;
  }
}

/** renderTable lays the figures out in aligned columns, with their notes underneath. */
export function renderTable(figures: readonly Figure[]): string {
  const rows = figures.map((row) => [
    String(row.section),
    row.name,
    formatValue(row.value, row.unit),
    formatValue(row.baseline, row.unit),
    `${row.ratio.toFixed(2)}x`,
    goalText(row.goal, row.unit),
    row.met === undefined ? '' : row.met ? 'yes' : 'NO',
    row.baselineName,
  ]);
  const widths = HEADERS.map((header, column) => Math.max(header.length, ...rows.map((cells) => (cells[column] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column >= 2 && column <= 4 ? cell.padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  const notes = figures.flatMap((row, index) => (row.note === undefined ? [] : [`  [${index + 1}] ${row.name}: ${row.note}`]));
  return [line(HEADERS), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line), ...(notes.length > 0 ? ['', 'Notes:', ...notes] : [])].join('\n');
}

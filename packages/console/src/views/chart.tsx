import type { Schemas } from '../api.js';

const WIDTH = 240;
const HEIGHT = 48;

/**
 * A queue's last 10 minutes in one small SVG: stored messages as a line (depth), messages
 * acknowledged per 10 seconds as bars (throughput).
 */
export function QueueChart(props: { samples: Schemas['QueueSample'][]; label: string }) {
  const { samples } = props;
  const maxMessages = Math.max(1, ...samples.map((s) => s.messages));
  const maxProcessed = Math.max(1, ...samples.map((s) => s.processed));
  const step = WIDTH / Math.max(1, samples.length - 1);
  const y = (value: number, max: number) => HEIGHT - 2 - (value / max) * (HEIGHT - 4);
  const line = samples.map((s, i) => `${(i * step).toFixed(1)},${y(s.messages, maxMessages).toFixed(1)}`).join(' ');
  const last = samples.at(-1);
  return (
    <svg class="chart" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} width={WIDTH} height={HEIGHT} role="img"
      aria-label={`${props.label}: ${last?.messages ?? 0} messages now, ${last?.processed ?? 0} acknowledged in the last 10 seconds`}
      data-points={samples.map((s) => s.messages).join(',')}>
      {samples.map((s, i) =>
        s.processed > 0 ? <rect key={s.at} class="bar" x={i * step - step / 3} width={(step * 2) / 3} y={y(s.processed, maxProcessed)} height={HEIGHT - 2 - y(s.processed, maxProcessed)} /> : null,
      )}
      <polyline class="line" points={line} fill="none" />
    </svg>
  );
}

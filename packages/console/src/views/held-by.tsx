import type { Schemas } from '../api.js';
import { ago, countdown } from '../format.js';

/** One queue's leased messages: which session holds each, its fence, deliveries and time left. */
export function HeldBy(props: { activity: Schemas['QueueActivity']; now: number }) {
  const { activity, now } = props;
  const name = `${activity.spool}/${activity.queue}`;
  return (
    <table class="leased" data-queue={name}>
      <caption>
        Held by — leased messages of <code>{name}</code>
        {activity.nextCursor !== null && <span class="muted"> (the oldest 100 shown)</span>}
      </caption>
      <thead>
        <tr><th scope="col">Message</th><th scope="col">Held by</th><th scope="col">Fence</th><th scope="col">Deliveries</th><th scope="col">Received</th><th scope="col">Lease expires in</th></tr>
      </thead>
      <tbody>
        {activity.leased.map((m) => (
          <tr key={m.claimId} data-leased={m.claimId}>
            <td><code class="message">{m.messageId}</code></td>
            <td><code class="holder">{m.holderSession ?? '— (no session)'}</code></td>
            <td>{m.fence}</td>
            <td>{m.deliveryCount}</td>
            <td>{ago(m.acquiredAt, now)}</td>
            <td class="countdown">{countdown(m.expiresAt, now)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

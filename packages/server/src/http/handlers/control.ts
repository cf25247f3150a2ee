import type { ServerControl } from '../../control/server-control.js';
import type { Store } from '../../store/operations.js';
import type { ControlHandlers } from '../handler.js';
import { mapMaybe } from '../maybe.js';

const done = (affected?: number) => ({
  status: 200,
  body: affected === undefined ? { object: 'control_result', ok: true } : { object: 'control_result', ok: true, affected },
});

/** The clock as `/_control/clock` shows it. */
const clockAnswer = (control: ServerControl<Store>) =>
  mapMaybe(control.clockMode, (mode) => mapMaybe(control.now(), (now) => ({ status: 200, body: { object: 'clock', mode, now } })));

/** Handlers of the `/_control` operations, over the server's levers (`ServerControl`). */
export const controlHandlers: ControlHandlers = {
  getControlClock: (control) => clockAnswer(control),
  advanceControlClock: (control, { body }) => mapMaybe(control.advanceClock(body.ms), () => clockAnswer(control)),
  injectControlFault: (control, { body }) => mapMaybe(control.injectFault(body), (fault) => ({ status: 201, body: fault })),
  clearControlFaults: (control) => mapMaybe(control.clearFaults(), done),
  cancelControlScope: (control, { body }) => mapMaybe(control.cancelScope(body), done),
  discardControlMessage: (control, { body }) => mapMaybe(control.discardMessage(body), done),
  simulatePrimaryChange: (control) => mapMaybe(control.primaryChange(), done),
  updateControlAccount: (control, { path, body }) => mapMaybe(control.suspendAccount(path.accountId, body.suspended), () => done()),
  updateControlCredential: (control, { body: { apiKey, ...changes } }) => mapMaybe(control.updateCredential(apiKey, changes), () => done()),
  loseControlLease: (control, { path }) => mapMaybe(control.loseLease(path.claimId), done),
};

import type { components } from '@leasehold/protocol';
import type { ServerControl } from '../../control.js';
import type { Handler } from '../handler.js';

type Schemas = components['schemas'];

const done = (affected?: number) => ({
  status: 200,
  body: affected === undefined ? { object: 'control_result', ok: true } : { object: 'control_result', ok: true, affected },
});

/** Handlers of the `/_control` operations, over the in-process levers. */
export function controlHandlers(control: ServerControl): Record<string, Handler> {
  const clock = () => ({ status: 200, body: { object: 'clock', mode: control.clockMode, now: control.now() } });
  return {
    getControlClock: clock,
    advanceControlClock: (ctx) => {
      control.advanceClock((ctx.input.body as Schemas['AdvanceClockRequest']).ms);
      return clock();
    },
    injectControlFault: (ctx) => ({ status: 201, body: control.injectFault(ctx.input.body as Schemas['FaultRule']) }),
    clearControlFaults: () => done(control.clearFaults()),
    cancelControlScope: (ctx) => done(control.cancelScope(ctx.input.body as Schemas['ControlScopeCancelRequest'])),
    discardControlMessage: (ctx) => done(control.discardMessage(ctx.input.body as Schemas['ControlDiscardRequest'])),
    simulatePrimaryChange: () => done(control.primaryChange()),
    updateControlAccount: (ctx) => {
      control.suspendAccount(ctx.input.path.accountId as string, (ctx.input.body as Schemas['UpdateAccountRequest']).suspended);
      return done();
    },
    updateControlCredential: (ctx) => {
      const { apiKey, ...changes } = ctx.input.body as Schemas['UpdateCredentialRequest'];
      ctx.engine.controls.updateCredential(apiKey, changes);
      return done();
    },
    loseControlLease: (ctx) => done(control.loseLease(ctx.input.path.claimId as string)),
  };
}

import type { StaffJob } from '@warren/contract';
import { NotFoundError, ValidationError } from '../../lib/errors.js';
import type { JobEngine } from '../billing/index.js';
import type { StaffActor, StaffAudit } from './audit.js';

export interface StaffJobsDeps {
  /** The job engine (pg-boss): its list and its retry of a failed job. */
  engine: Pick<JobEngine, 'list' | 'retry'>;
  audit: Pick<StaffAudit, 'record'>;
  now: () => Date;
}

/** The console's jobs: the list and the retry of a failed one (audited). */
export function staffJobs(deps: StaffJobsDeps) {
  const { audit, now } = deps;
  return {
    async jobs(state?: string): Promise<StaffJob[]> {
      return (await deps.engine.list()).filter((j) => !state || j.state === state);
    },
    async retryJob(actor: StaffActor, queue: string, id: string): Promise<StaffJob> {
      const outcome = await deps.engine.retry(queue, id);
      if (outcome === 'missing') throw new NotFoundError('No such job.');
      if (outcome === 'not-failed') throw new ValidationError({ id: ['Only a failed job can be retried.'] });
      await audit.record(actor, 'job-retry', { text: `${queue}/${id}` }, { queue, id });
      const job = (await deps.engine.list({ all: true })).find((j) => j.id === id);
      return (
        job ?? { queue, id, state: 'retry', data: null, startAfter: now().toISOString(), retryCount: 0, output: null }
      );
    },
  };
}

import type { CliGroup } from './command.js';

/** The job engine (pg-boss, modules/billing/jobs.ts) as an operator sees it. */
export const commands: CliGroup = {
  list: {
    summary: 'jobs that are due, running, waiting for a retry or failed (--all: also completed ones)',
    usage: '[--all]',
    async run(ctx) {
      const jobs = await (await ctx.services()).jobs.list({ all: ctx.flags.all === true });
      for (const j of jobs) {
        ctx.print(
          `${j.queue.padEnd(17)} ${j.state.padEnd(9)} ${j.startAfter}  retries ${j.retryCount}  ${JSON.stringify(j.data)}${j.state === 'failed' ? `  ${JSON.stringify(j.output)}` : ''}`,
        );
      }
      if (!jobs.length) ctx.print('No jobs due or failed.');
    },
  },
};

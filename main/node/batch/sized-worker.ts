// BullMQ's worker parses a job's fields as soon as Redis hands them over, and whoever can write to the queue's
// Redis can store a job of any size. This worker measures the stored strings first: a job over the bounds of
// batch-job.ts oversizedJob is built from its id alone, and its handler is told why, to fail it unread.
import { Worker, type Job, type JobJsonRaw } from 'bullmq';
import { oversizedJob } from './batch-job';

export class SizedWorker extends Worker {
  /** Why each job built from its id alone was too large, until its handler takes it. */
  private readonly oversized = new Map<string, string>();

  protected override createJob(stored: JobJsonRaw, jobId: string): Job {
    const reason = oversizedJob(stored as unknown as Record<string, unknown>);
    if (reason === null) return super.createJob(stored, jobId);
    this.oversized.set(jobId, reason);
    const now = String(Date.now());
    return super.createJob({ id: jobId, name: 'pages', data: 'null', opts: '{}', progress: '0', delay: '0', priority: '0', timestamp: now, failedReason: '', returnvalue: 'null' }, jobId);
  }

  /** Why the job was not parsed, once; null for a job parsed as usual. */
  takeOversized(jobId: string | undefined): string | null {
    if (jobId === undefined) return null;
    const reason = this.oversized.get(jobId) ?? null;
    this.oversized.delete(jobId);
    return reason;
  }
}

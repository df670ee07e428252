import { validateListJobsQuery } from './jobs-list.validators';

describe('the query of GET /api/v1/jobs', () => {
  it('defaults to 20 jobs with no filter, and takes every filter with its value', () => {
    expect(validateListJobsQuery({})).toEqual({ ok: true, value: { limit: 20 } });
    expect(
      validateListJobsQuery({
        limit: '100',
        starting_after: 'job_abc123',
        status: 'failed',
        model: 'vidgen-2.0-fast',
        type: 'video',
      }),
    ).toEqual({
      ok: true,
      value: { limit: 100, starting_after: 'job_abc123', status: 'failed', model: 'vidgen-2.0-fast', type: 'video' },
    });
  });

  it('treats an empty value as not given', () => {
    expect(validateListJobsQuery({ limit: '', status: '', model: '', type: '', starting_after: '' })).toEqual({
      ok: true,
      value: { limit: 20 },
    });
  });

  it.each([
    [{ limit: '0' }, 'limit must be an integer between 1 and 100'],
    [{ limit: '101' }, 'limit must be an integer between 1 and 100'],
    [{ limit: '5.5' }, 'limit must be an integer between 1 and 100'],
    [{ limit: 'ten' }, 'limit must be an integer between 1 and 100'],
    [{ status: 'done' }, 'status must be one of processing, completed, failed, cancelled'],
    [{ model: 'VidGen 2.0' }, 'model must be one of vidgen-2.0, vidgen-2.0-fast, imagegen-2'],
    [{ type: 'audio' }, 'type must be one of video, image'],
    [{ starting_after: '../etc' }, 'starting_after must be a job id (job_...)'],
    [{ status: ['failed', 'completed'] }, 'status must be given once, as a plain value'],
    [
      { stauts: 'failed' },
      'unknown query parameter: stauts (accepted: limit, starting_after, status, model, type, created[gte], created[lte])',
    ],
    [
      { page: '2', offset: '5' },
      'unknown query parameters: page, offset (accepted: limit, starting_after, status, model, type, created[gte], created[lte])',
    ],
  ])('refuses %j: %s', (query, error) => {
    expect(validateListJobsQuery(query)).toEqual({ ok: false, error });
  });
});

/**
 * --columns naming one of its keys twice (a slip for triggerId=...): the last one silently won, and
 * with --trigger every event went to the user named by the event column ("purchase").
 */
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { parseColumns } from '../../src/batch/rows.js';

describe('--columns with a key given twice', () => {
  it('is a usage error naming the key', () => {
    // Was: { userId: 'event_name', ... } with no word.
    expect(() => parseColumns('userId=user_id,userId=event_name')).toThrow(UsageError);
    expect(() => parseColumns('userId=user_id,userId=event_name')).toThrow(/userId/);
  });
});

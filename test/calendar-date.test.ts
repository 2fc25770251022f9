import { describe, expect, it } from 'vitest';
import { isCalendarDate } from '../src/util/calendar-date.js';

describe('isCalendarDate', () => {
  it('takes days that exist, written YYYY-MM-DD', () => {
    for (const d of ['2026-11-26', '2024-02-29', '2000-02-29', '0001-01-01', '9999-12-31']) expect(isCalendarDate(d), d).toBe(true);
  });

  it('refuses days that do not exist and other spellings', () => {
    for (const d of ['2026-02-29', '1900-02-29', '2026-02-30', '2026-13-01', '2026-00-10', '2026-11-31', '2026-11-26T00:00:00Z', '2026-1-5', '20261126', ' 2026-11-26', '2026-11-26\n', '+02026-11-26', '']) {
      expect(isCalendarDate(d), JSON.stringify(d)).toBe(false);
    }
  });
});

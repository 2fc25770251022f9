/** The nights a figure reads, as filters on a table alias's `snapshot_date` (the report's setup defines the variables and macros). */
import type { NightFilter } from '../../sql/derived.js';

/** The nights of the window without a current derived set (src/sql/derived.ts): the definitions answer for them. */
export const VIEWED: NightFilter = (c) => `in_window(${c}) AND report_viewed(${c})`;
/** The latest night of the window, as a filter on column `c` (`latest('p.snapshot_date')` for an alias's). */
export const latest: NightFilter = (c) => `${c} = getvariable('report_to_night')`;
/** The latest night of the window, on a table read without an alias. */
export const LATEST = latest('snapshot_date');

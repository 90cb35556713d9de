/** Lists return at most 100 items per page, 20 unless `limit` says otherwise (docs/decisions.md §4). */
export const PAGE_LIMIT_MAX = 100;
export const PAGE_LIMIT_DEFAULT = 20;

import { consoleMeta } from "#web/components/console/title";

export const meta = consoleMeta("Additional fees — Pricing — Console");
export { feesLoader as loader } from "#web/components/console/pricing/lists.server";
export { PricingListPage as default } from "#web/components/console/pricing/lists";

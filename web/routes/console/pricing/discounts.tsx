import { consoleMeta } from "#web/components/console/title";

export const meta = consoleMeta("Discount rules — Pricing — Console");
export { discountsLoader as loader } from "#web/components/console/pricing/lists.server";
export { PricingListPage as default } from "#web/components/console/pricing/lists";

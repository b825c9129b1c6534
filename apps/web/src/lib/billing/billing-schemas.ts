// The schemas of the checkout's calls made on a press (a promo code, Pay), loaded with the first
// such call: zod and these schemas stay off the checkout's first screen. The first screen's own
// answers are checked by the contract's zod-free shape checks (shape-checks.ts).
export { createPaymentResult, guestPriceData } from '@warren/contract';

export type DeviceType = 'mobile' | 'desktop';

const MOBILE_UA = /android|webos|iphone|ipad|ipod|blackberry|windows phone/i;

/** Spec section 3: decided by user-agent matching. */
export function detectDeviceType(userAgent: string): DeviceType {
  return MOBILE_UA.test(userAgent) ? 'mobile' : 'desktop';
}

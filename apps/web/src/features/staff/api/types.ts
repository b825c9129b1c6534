// Provisional shapes until packages/contract/src/staff.ts lands (then these come from there).
export type StaffRole = 'support' | 'admin';
export interface StaffMe {
  email: string;
  role: StaffRole;
  expiresAt: string;
}
export interface CustomerSummary {
  id: number;
  email: string;
  verified: boolean;
  disabled: boolean;
  createdAt: string;
  plan: string | null;
  expiresAt: string | null;
}
export interface CustomerPayment {
  id: string;
  createdAt: string;
  amount: string;
  currency: string;
  provider: string;
  status: string;
  plan: string | null;
  refundedAt: string | null;
  refundable: boolean;
  insideWindow: boolean;
}
export interface CustomerDevice {
  id: number;
  name: string;
  location: string | null;
  createdAt: string;
  lastHandshakeAt: string | null;
}
export interface CustomerSession {
  id: number;
  createdAt: string;
  lastUsedAt: string;
  userAgent: string | null;
}
export interface CustomerMail {
  id: number;
  kind: string;
  subject: string;
  sentAt: string;
}
export interface CustomerDetail {
  account: {
    id: number;
    email: string;
    name: string | null;
    verified: boolean;
    disabled: boolean;
    twoFactor: boolean;
    language: string;
    createdAt: string;
  };
  subscription: { plan: string | null; status: string; expiresAt: string | null; autoRenew: boolean; provider: string | null };
  payments: CustomerPayment[];
  devices: CustomerDevice[];
  services: { openvpn: boolean; socks5: boolean };
  sessions: CustomerSession[];
  mails: CustomerMail[];
}
export interface StaffNode {
  id: number;
  name: string;
  host: string;
  enabled: boolean;
  lastReportAt: string | null;
  activePeers: number | null;
  load: number | null;
  agentVersion: string | null;
  lastApplyError: string | null;
}
export interface StaffLocation {
  id: number;
  slug: string;
  country: string;
  city: string;
  premium: boolean;
  visible: boolean;
  nodes: StaffNode[];
}
export interface StaffJob {
  id: number;
  kind: string;
  userId: number | null;
  runAt: string;
  attempts: number;
  lastError: string | null;
  status: 'due' | 'failed';
}
export interface AuditEntry {
  id: number;
  at: string;
  staffEmail: string;
  action: string;
  customerId: number | null;
  customerEmail: string | null;
  details: Record<string, unknown> | null;
  ip: string | null;
}

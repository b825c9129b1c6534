import { useMutation } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/** The file name the server gave (Content-Disposition), else a plain one. */
export function receiptFileName(disposition: string | null, paymentId: string): string {
  const match = disposition ? /filename="([^"]+)"/.exec(disposition) : null;
  return match?.[1] ?? `receipt-${paymentId}.pdf`;
}

/**
 * GET billing/payments/:publicId/receipt?lang=…: the receipt PDF in the page's language. The
 * bearer token lives in the page, so the file is fetched here and handed to the browser as a
 * download (a plain link would go without it).
 */
export async function downloadReceipt({
  paymentId,
  language,
}: {
  paymentId: string;
  language: string;
}): Promise<string> {
  const res = await api.get(`billing/payments/${encodeURIComponent(paymentId)}/receipt`, {
    searchParams: { lang: language },
  });
  const name = receiptFileName(res.headers.get('content-disposition'), paymentId);
  const url = URL.createObjectURL(await res.blob());
  try {
    const a = document.createElement('a');
    a.href = url;
    a.download = name;
    a.rel = 'noopener';
    document.body.append(a);
    a.click();
    a.remove();
  } finally {
    // Give the browser the moment it needs to start the download before the address goes.
    window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
  return name;
}

export function useDownloadReceipt() {
  return useMutation({ mutationFn: downloadReceipt });
}

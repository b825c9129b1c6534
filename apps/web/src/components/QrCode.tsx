import { Skeleton } from '@mantine/core';
import '@mantine/core/styles/Skeleton.layer.css';
import { useEffect, useState } from 'react';

/**
 * A QR code of `value` as an image (the `qrcode` package, loaded only when a code is shown: the
 * WireGuard and stealth pages). The code is drawn dark on light whatever the colour scheme: scanners
 * read it that way; at twice its size, so it stays sharp on dense screens.
 */
export function QrCode({
  value,
  alt,
  size = 200,
  testId,
  className,
}: {
  value: string;
  alt: string;
  size?: number;
  testId?: string;
  className?: string;
}) {
  const [src, setSrc] = useState<{ for: string; url: string } | null>(null);
  useEffect(() => {
    let live = true;
    void import('qrcode')
      .then((QR) => QR.toDataURL(value, { errorCorrectionLevel: 'M', margin: 2, width: size * 2 }))
      .then((url) => live && setSrc({ for: value, url }));
    return () => {
      live = false;
    };
  }, [value, size]);
  return src && src.for === value ? (
    <img
      src={src.url}
      alt={alt}
      width={size}
      height={size}
      className={className}
      style={{ display: 'block', background: '#fff', borderRadius: 8 }}
      data-testid={testId}
    />
  ) : (
    <Skeleton w={size} h={size} />
  );
}

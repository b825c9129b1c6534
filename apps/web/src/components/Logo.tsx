import { useState } from 'react';
import { Group, Text } from '@mantine/core';
import { getBrand } from '../lib/brand';
import classes from './Logo.module.css';

/** The brand mark: the brand's logo image when it has one, else a shield and the product name. */
export function Logo({ size = 'md' }: { size?: 'sm' | 'md' | 'lg' }) {
  const brand = getBrand();
  const [broken, setBroken] = useState(false);
  const px = size === 'lg' ? 40 : size === 'sm' ? 28 : 34;
  return (
    <Group gap={10} wrap="nowrap" className={classes.logo}>
      {brand.logo && !broken ? (
        <img src={brand.logo} alt="" width={px} height={px} className={classes.image} onError={() => setBroken(true)} />
      ) : (
        <span className={classes.mark} style={{ width: px, height: px }} aria-hidden="true">
          <svg viewBox="0 0 24 24" width={px * 0.6} height={px * 0.6}>
            <path d="M12 2.5l8 3v6.2c0 5-3.4 8.8-8 10.3-4.6-1.5-8-5.3-8-10.3V5.5z" fill="currentColor" />
            <path
              d="M8.5 12.2l2.4 2.4 4.6-4.8"
              fill="none"
              stroke="var(--mantine-color-brand-6)"
              strokeWidth="2"
              strokeLinecap="round"
              strokeLinejoin="round"
            />
          </svg>
        </span>
      )}
      <Text component="span" fw={700} fz={size === 'lg' ? 22 : size === 'sm' ? 16 : 19} className={classes.name}>
        {brand.productName}
      </Text>
    </Group>
  );
}

import { Tooltip } from '@mantine/core';
import '@mantine/core/styles/Tooltip.layer.css';

// Loaded by LazyTooltip: Mantine's Tooltip with floating-ui, apart from the first screen.
export { Tooltip };

/** What a route declares in `handle`: its title key (titles.*). */
export interface RouteHandle {
  titleKey?: string;
}

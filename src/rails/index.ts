/**
 * Rails as merchants and staff see them before money moves: which rails a phone number belongs to
 * (number resolution), what an application can use (configuration) and whether each rail works
 * now (availability). Reached from outside only through this module.
 */
export { NUMBER_PROBLEM_MESSAGES, resolveNumber, type NumberRail, type NumberResolution } from './resolve-number.ts';
export { activeRails, isRailUsable } from './usable-rails.ts';
export {
  applicationConfiguration,
  CUSTOMER_AUTHORIZATIONS,
  type ApplicationConfiguration,
  type CustomerAuthorization,
  type OperationConfiguration,
  type RailConfiguration,
} from './rail-configuration.ts';
export {
  AVAILABILITY_MIN_SAMPLE,
  AVAILABILITY_STATUSES,
  AVAILABILITY_WINDOW_MS,
  CLOSED_ERROR_SHARE,
  DELAYED_ERROR_SHARE,
  DELAYED_SLOW_SHARE,
  forgetClosedChecks,
  isPayOutHeld,
  isRailClosed,
  railStatus,
  liveRailAvailabilities,
  observedStatus,
  RAIL_DIRECTIONS,
  railAvailabilities,
  SLOW_AFTER_MS,
  type AvailabilityStatus,
  type ObservedTraffic,
  type RailAvailability,
  type RailDirection,
} from './availability.ts';

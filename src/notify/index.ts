/** Notifications: the deliverer of the outbox's messages (webhooks, e-mail), at least once. */
export { Deliverer, type DelivererOptions, type PassResult } from './deliverer.js';
export { DEFAULT_DELIVERY, readDeliverySettings, type DeliverySettings, type SmtpSettings } from './deliverySettings.js';

import { EventHub } from './event-hub';

describe('EventHub', () => {
  it('listens to a user only while one of its listeners is subscribed', () => {
    const hub = new EventHub();
    expect(hub.listensTo(7)).toBe(false);
    const stopA = hub.subscribe(7, () => undefined);
    const stopB = hub.subscribe(7, () => undefined);
    expect(hub.listensTo(7)).toBe(true);
    expect(hub.listensTo(8)).toBe(false);
    stopA();
    expect(hub.listensTo(7)).toBe(true);
    stopB();
    expect(hub.listensTo(7)).toBe(false);
  });

  it('does not listen to a malformed user id', () => {
    const hub = new EventHub();
    hub.subscribe(7, () => undefined);
    expect(hub.listensTo('7')).toBe(false);
    expect(hub.listensTo(undefined)).toBe(false);
  });
});

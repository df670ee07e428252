import { brokerNodes, describeNode, NodeRotation } from './nodes';

describe('broker nodes', () => {
  it('reads one URL or a comma-separated list, in order', () => {
    expect(brokerNodes('amqp://a:5672')).toEqual(['amqp://a:5672']);
    expect(brokerNodes(' amqp://a:5672/v , amqp://b:5672/v,')).toEqual(['amqp://a:5672/v', 'amqp://b:5672/v']);
  });

  it('describes a node without its credentials', () => {
    expect(describeNode('amqp://user:secret@mq-1:5672/prod')).toBe('amqp://mq-1:5672/prod');
    expect(describeNode('amqp://user:secret@mq-1:5672')).toBe('amqp://mq-1:5672');
  });

  it('moves straight on to the next node and backs off only once a whole round has failed', () => {
    const rotation = new NodeRotation(['a', 'b', 'c']);
    expect(rotation.current).toBe('a');
    expect(rotation.failed()).toBe(false);
    expect(rotation.current).toBe('b');
    expect(rotation.failed()).toBe(false);
    expect(rotation.current).toBe('c');
    expect(rotation.failed()).toBe(true);
    expect(rotation.current).toBe('a');
  });

  it('goes on to the node after the one whose connection dropped, wrapping round', () => {
    const rotation = new NodeRotation(['a', 'b', 'c']);
    rotation.failed(); // a is down at start: b answers
    rotation.connected();
    rotation.dropped();
    expect(rotation.current).toBe('c');
    rotation.connected();
    rotation.dropped();
    expect(rotation.current).toBe('a');
    // A fresh round after a drop: three failures in a row before backing off.
    expect([rotation.failed(), rotation.failed(), rotation.failed()]).toEqual([false, false, true]);
  });

  it('with one node, always retries it and backs off after each failure', () => {
    const rotation = new NodeRotation(['only']);
    expect(rotation.failed()).toBe(true);
    rotation.dropped();
    expect(rotation.current).toBe('only');
  });
});

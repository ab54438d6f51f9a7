// mpsgen's stand-in for Apple's Foundation, written for a syntax-only compile of PyTorch's MPS
// sources on a machine without the macOS SDK. It declares the types, constants and the methods whose
// result is not an object (or that are reached through dot syntax) that those sources use; any other
// message send falls back to Objective-C's `id` result (its warning is switched off by the driver).
#pragma once

#include <TargetConditionals.h>
#include <float.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <mpsgen_objc_base.h>
#include <dispatch/dispatch.h>
#include <mach/vm_param.h> // Foundation brings in the mach headers on a Mac

// The SDK release the stubs stand for (a current one, as PyTorch's wheels are built with): the
// checkout's MPSGraph*Ops.h declare an API themselves only for an older SDK.
#define __MAC_10_13 101300
#define __MAC_11_0 110000
#define __MAC_12_0 120000
#define __MAC_12_3 120300
#define __MAC_13_0 130000
#define __MAC_13_1 130100
#define __MAC_13_2 130200
#define __MAC_13_3 130300
#define __MAC_14_0 140000
#define __MAC_14_4 140400
#define __MAC_15_0 150000
#define __MAC_15_5 150500
#define __MAC_26_0 260000
#define MAC_OS_X_VERSION_10_13 101300
#define MAC_OS_X_VERSION_11_0 110000
#define MAC_OS_X_VERSION_12_0 120000
#define MAC_OS_X_VERSION_13_0 130000
#define MAC_OS_X_VERSION_13_2 130200
#define MAC_OS_X_VERSION_14_0 140000
#define MAC_OS_X_VERSION_15_0 150000
#define MAC_OS_VERSION_11_0 110000
#define MAC_OS_VERSION_12_0 120000
#define MAC_OS_VERSION_13_0 130000
#define MAC_OS_VERSION_14_0 140000
#define MAC_OS_VERSION_15_0 150000
#define MAC_OS_VERSION_26_0 260000
#define __MAC_OS_X_VERSION_MAX_ALLOWED 150500
#define MAC_OS_X_VERSION_MAX_ALLOWED 150500
#ifndef MAC_OS_X_VERSION_MIN_REQUIRED
#define MAC_OS_X_VERSION_MIN_REQUIRED 130300
#endif

#define API_AVAILABLE(...)
#define API_UNAVAILABLE(...)
#define API_DEPRECATED(...)
#define API_DEPRECATED_WITH_REPLACEMENT(...)
#define NS_AVAILABLE(...)
#define NS_ENUM_AVAILABLE(...)
#define NS_SWIFT_NAME(...)
#define NS_REFINED_FOR_SWIFT
#define NS_DESIGNATED_INITIALIZER
#define NS_RETURNS_RETAINED __attribute__((ns_returns_retained))
#define NS_RETURNS_INNER_POINTER __attribute__((objc_returns_inner_pointer))
#define NS_RETURNS_NOT_RETAINED __attribute__((ns_returns_not_retained))
#define NS_ASSUME_NONNULL_BEGIN _Pragma("clang assume_nonnull begin")
#define NS_ASSUME_NONNULL_END _Pragma("clang assume_nonnull end")
#define NS_ENUM(_type, _name) enum _name : _type _name; enum _name : _type
#define NS_OPTIONS(_type, _name) _type _name; enum : _type
#define NS_CLOSED_ENUM(_type, _name) NS_ENUM(_type, _name)
#define NS_ERROR_ENUM(_domain, _name) NS_ENUM(NSInteger, _name)
#define FOUNDATION_EXPORT extern "C"
#define FOUNDATION_EXTERN extern "C"
#define NS_INLINE static inline

#define NSIntegerMax LONG_MAX
#define NSIntegerMin LONG_MIN
#define NSUIntegerMax ULONG_MAX
static const NSInteger NSNotFound = NSIntegerMax;
typedef double NSTimeInterval;
typedef double CGFloat;
typedef struct _NSRange {
  NSUInteger location;
  NSUInteger length;
} NSRange;
NS_INLINE NSRange NSMakeRange(NSUInteger loc, NSUInteger len) {
  NSRange r = {loc, len};
  return r;
}

typedef NS_ENUM(NSInteger, NSComparisonResult){NSOrderedAscending = -1L, NSOrderedSame, NSOrderedDescending};
typedef NS_OPTIONS(NSUInteger, NSStringCompareOptions){NSCaseInsensitiveSearch = 1, NSLiteralSearch = 2};
typedef NSUInteger NSStringEncoding;
enum : NSStringEncoding { NSASCIIStringEncoding = 1, NSUTF8StringEncoding = 4 };

@class NSArray<ObjectType>, NSDictionary<KeyType, ObjectType>, NSError, NSData, NSNumber, NSMethodSignature,
    NSInvocation, NSCoder, NSEnumerator<ObjectType>, NSURL, NSBundle, NSLock;

@protocol NSCopying
- (id)copyWithZone:(NSZone*)zone;
@end
@protocol NSMutableCopying
- (id)mutableCopyWithZone:(NSZone*)zone;
@end
@protocol NSCoding
@end
@protocol NSSecureCoding <NSCoding>
@end
@protocol NSLocking
- (void)lock;
- (void)unlock;
@end

typedef struct {
  unsigned long state;
  id __unsafe_unretained* itemsPtr;
  unsigned long* mutationsPtr;
  unsigned long extra[5];
} NSFastEnumerationState;
@protocol NSFastEnumeration
- (NSUInteger)countByEnumeratingWithState:(NSFastEnumerationState*)state
                                  objects:(id __unsafe_unretained[])buffer
                                    count:(NSUInteger)len;
@end

@interface NSString : NSObject <NSCopying, NSMutableCopying, NSSecureCoding>
@property(readonly) NSUInteger length;
- (unsigned short)characterAtIndex:(NSUInteger)index;
@property(nullable, readonly) const char* UTF8String NS_RETURNS_INNER_POINTER;
- (const char*)cStringUsingEncoding:(NSStringEncoding)encoding;
+ (instancetype)stringWithUTF8String:(const char*)nullTerminatedCString;
+ (instancetype)stringWithCString:(const char*)cString encoding:(NSStringEncoding)enc;
+ (instancetype)stringWithFormat:(NSString*)format, ...;
+ (instancetype)string;
- (instancetype)initWithUTF8String:(const char*)nullTerminatedCString;
- (instancetype)initWithFormat:(NSString*)format, ...;
- (instancetype)initWithCString:(const char*)cString encoding:(NSStringEncoding)enc;
- (NSString*)stringByAppendingString:(NSString*)aString;
- (NSString*)stringByAppendingFormat:(NSString*)format, ...;
- (BOOL)isEqualToString:(NSString*)aString;
- (BOOL)hasPrefix:(NSString*)str;
- (BOOL)hasSuffix:(NSString*)str;
- (BOOL)containsString:(NSString*)str;
- (NSRange)rangeOfString:(NSString*)searchString;
- (NSComparisonResult)compare:(NSString*)string;
@property(readonly) int intValue;
@property(readonly) NSInteger integerValue;
@property(readonly) long long longLongValue;
@property(readonly) double doubleValue;
@property(readonly) float floatValue;
@property(readonly) BOOL boolValue;
- (NSArray<NSString*>*)componentsSeparatedByString:(NSString*)separator;
@end

@interface NSMutableString : NSString
- (void)appendString:(NSString*)aString;
- (void)appendFormat:(NSString*)format, ...;
+ (instancetype)stringWithCapacity:(NSUInteger)capacity;
@end

@interface NSValue : NSObject <NSCopying, NSSecureCoding>
@end

@interface NSNumber : NSValue
- (instancetype)initWithChar:(char)value;
- (instancetype)initWithInt:(int)value;
- (instancetype)initWithInteger:(NSInteger)value;
- (instancetype)initWithUnsignedInteger:(NSUInteger)value;
- (instancetype)initWithLongLong:(long long)value;
- (instancetype)initWithFloat:(float)value;
- (instancetype)initWithDouble:(double)value;
- (instancetype)initWithBool:(BOOL)value;
@property(readonly) char charValue;
@property(readonly) unsigned char unsignedCharValue;
@property(readonly) short shortValue;
@property(readonly) unsigned short unsignedShortValue;
@property(readonly) int intValue;
@property(readonly) unsigned int unsignedIntValue;
@property(readonly) long longValue;
@property(readonly) unsigned long unsignedLongValue;
@property(readonly) long long longLongValue;
@property(readonly) unsigned long long unsignedLongLongValue;
@property(readonly) float floatValue;
@property(readonly) double doubleValue;
@property(readonly) BOOL boolValue;
@property(readonly) NSInteger integerValue;
@property(readonly) NSUInteger unsignedIntegerValue;
@property(readonly, copy) NSString* stringValue;
- (NSComparisonResult)compare:(NSNumber*)otherNumber;
- (BOOL)isEqualToNumber:(NSNumber*)number;
+ (NSNumber*)numberWithChar:(char)value;
+ (NSNumber*)numberWithUnsignedChar:(unsigned char)value;
+ (NSNumber*)numberWithShort:(short)value;
+ (NSNumber*)numberWithUnsignedShort:(unsigned short)value;
+ (NSNumber*)numberWithInt:(int)value;
+ (NSNumber*)numberWithUnsignedInt:(unsigned int)value;
+ (NSNumber*)numberWithLong:(long)value;
+ (NSNumber*)numberWithUnsignedLong:(unsigned long)value;
+ (NSNumber*)numberWithLongLong:(long long)value;
+ (NSNumber*)numberWithUnsignedLongLong:(unsigned long long)value;
+ (NSNumber*)numberWithFloat:(float)value;
+ (NSNumber*)numberWithDouble:(double)value;
+ (NSNumber*)numberWithBool:(BOOL)value;
+ (NSNumber*)numberWithInteger:(NSInteger)value;
+ (NSNumber*)numberWithUnsignedInteger:(NSUInteger)value;
@end

@interface NSArray<__covariant ObjectType> : NSObject <NSCopying, NSMutableCopying, NSSecureCoding, NSFastEnumeration>
@property(readonly) NSUInteger count;
- (ObjectType)objectAtIndex:(NSUInteger)index;
- (ObjectType)objectAtIndexedSubscript:(NSUInteger)idx;
- (instancetype)initWithObjects:(const ObjectType[])objects count:(NSUInteger)cnt;
- (instancetype)initWithArray:(NSArray<ObjectType>*)array;
+ (instancetype)array;
+ (instancetype)arrayWithObject:(ObjectType)anObject;
+ (instancetype)arrayWithObjects:(const ObjectType[])objects count:(NSUInteger)cnt;
+ (instancetype)arrayWithObjects:(ObjectType)firstObj, ...;
+ (instancetype)arrayWithArray:(NSArray<ObjectType>*)array;
@property(nullable, readonly) ObjectType firstObject;
@property(nullable, readonly) ObjectType lastObject;
- (BOOL)containsObject:(ObjectType)anObject;
- (NSUInteger)indexOfObject:(ObjectType)anObject;
- (NSArray<ObjectType>*)arrayByAddingObject:(ObjectType)anObject;
- (NSArray<ObjectType>*)arrayByAddingObjectsFromArray:(NSArray<ObjectType>*)otherArray;
- (NSArray<ObjectType>*)subarrayWithRange:(NSRange)range;
- (NSString*)componentsJoinedByString:(NSString*)separator;
- (BOOL)isEqualToArray:(NSArray<ObjectType>*)otherArray;
- (NSEnumerator<ObjectType>*)objectEnumerator;
- (NSEnumerator<ObjectType>*)reverseObjectEnumerator;
- (void)enumerateObjectsUsingBlock:(void (^)(ObjectType obj, NSUInteger idx, BOOL* stop))block;
@end

@interface NSMutableArray<ObjectType> : NSArray <ObjectType>
- (void)addObject:(ObjectType)anObject;
- (void)insertObject:(ObjectType)anObject atIndex:(NSUInteger)index;
- (void)removeLastObject;
- (void)removeObjectAtIndex:(NSUInteger)index;
- (void)removeAllObjects;
- (void)replaceObjectAtIndex:(NSUInteger)index withObject:(ObjectType)anObject;
- (void)addObjectsFromArray:(NSArray<ObjectType>*)otherArray;
- (void)setObject:(ObjectType)obj atIndexedSubscript:(NSUInteger)idx;
- (void)exchangeObjectAtIndex:(NSUInteger)idx1 withObjectAtIndex:(NSUInteger)idx2;
- (instancetype)initWithCapacity:(NSUInteger)numItems;
+ (instancetype)arrayWithCapacity:(NSUInteger)numItems;
@end

@interface NSEnumerator<ObjectType> : NSObject <NSFastEnumeration>
- (nullable ObjectType)nextObject;
@end

@interface NSDictionary<__covariant KeyType, __covariant ObjectType> : NSObject <NSCopying, NSMutableCopying, NSSecureCoding, NSFastEnumeration>
@property(readonly) NSUInteger count;
- (nullable ObjectType)objectForKey:(KeyType)aKey;
- (nullable ObjectType)objectForKeyedSubscript:(KeyType)key;
@property(readonly, copy) NSArray<KeyType>* allKeys;
@property(readonly, copy) NSArray<ObjectType>* allValues;
- (instancetype)initWithObjects:(const ObjectType[])objects forKeys:(const KeyType<NSCopying>[])keys count:(NSUInteger)cnt;
+ (instancetype)dictionary;
+ (instancetype)dictionaryWithObject:(ObjectType)object forKey:(KeyType<NSCopying>)key;
+ (instancetype)dictionaryWithObjects:(const ObjectType[])objects forKeys:(const KeyType<NSCopying>[])keys count:(NSUInteger)cnt;
+ (instancetype)dictionaryWithObjects:(NSArray<ObjectType>*)objects forKeys:(NSArray<KeyType<NSCopying>>*)keys;
+ (instancetype)dictionaryWithDictionary:(NSDictionary<KeyType, ObjectType>*)dict;
- (void)enumerateKeysAndObjectsUsingBlock:(void (^)(KeyType key, ObjectType obj, BOOL* stop))block;
@end

@interface NSMutableDictionary<KeyType, ObjectType> : NSDictionary <KeyType, ObjectType>
- (void)removeObjectForKey:(KeyType)aKey;
- (void)setObject:(ObjectType)anObject forKey:(KeyType<NSCopying>)aKey;
- (void)setObject:(nullable ObjectType)obj forKeyedSubscript:(KeyType<NSCopying>)key;
- (void)removeAllObjects;
- (void)addEntriesFromDictionary:(NSDictionary<KeyType, ObjectType>*)otherDictionary;
- (instancetype)initWithCapacity:(NSUInteger)numItems;
+ (instancetype)dictionaryWithCapacity:(NSUInteger)numItems;
@end

@interface NSSet<__covariant ObjectType> : NSObject <NSCopying, NSMutableCopying, NSSecureCoding, NSFastEnumeration>
@property(readonly) NSUInteger count;
- (BOOL)containsObject:(ObjectType)anObject;
+ (instancetype)setWithArray:(NSArray<ObjectType>*)array;
@end
@interface NSMutableSet<ObjectType> : NSSet <ObjectType>
- (void)addObject:(ObjectType)object;
- (void)removeObject:(ObjectType)object;
@end

@interface NSData : NSObject <NSCopying, NSMutableCopying, NSSecureCoding>
@property(readonly) NSUInteger length;
@property(readonly) const void* bytes NS_RETURNS_INNER_POINTER;
+ (instancetype)dataWithBytes:(const void*)bytes length:(NSUInteger)length;
+ (instancetype)dataWithBytesNoCopy:(void*)bytes length:(NSUInteger)length freeWhenDone:(BOOL)b;
- (instancetype)initWithBytes:(const void*)bytes length:(NSUInteger)length;
- (instancetype)initWithBytesNoCopy:(void*)bytes length:(NSUInteger)length freeWhenDone:(BOOL)b;
@end
@interface NSMutableData : NSData
@property(readonly) void* mutableBytes NS_RETURNS_INNER_POINTER;
@property NSUInteger length;
+ (instancetype)dataWithLength:(NSUInteger)length;
@end

typedef NSString* NSErrorDomain;
@interface NSError : NSObject <NSCopying, NSSecureCoding>
@property(readonly, copy) NSErrorDomain domain;
@property(readonly) NSInteger code;
@property(readonly, copy) NSDictionary<NSString*, id>* userInfo;
@property(readonly, copy) NSString* localizedDescription;
+ (instancetype)errorWithDomain:(NSErrorDomain)domain code:(NSInteger)code userInfo:(nullable NSDictionary<NSString*, id>*)dict;
@end

typedef NSString* NSExceptionName;
@interface NSException : NSObject <NSCopying, NSSecureCoding>
@property(readonly, copy) NSExceptionName name;
@property(nullable, readonly, copy) NSString* reason;
+ (void)raise:(NSExceptionName)name format:(NSString*)format, ...;
@end

@interface NSURL : NSObject <NSSecureCoding, NSCopying>
+ (instancetype)fileURLWithPath:(NSString*)path;
+ (instancetype)URLWithString:(NSString*)URLString;
@property(nullable, readonly, copy) NSString* path;
@end

@interface NSBundle : NSObject
+ (NSBundle*)mainBundle;
+ (nullable instancetype)bundleWithPath:(NSString*)path;
@property(readonly, copy) NSString* bundlePath;
@end

@interface NSLock : NSObject <NSLocking>
@end
@interface NSRecursiveLock : NSObject <NSLocking>
@end

@interface NSAutoreleasePool : NSObject
- (void)drain;
@end

typedef struct {
  NSInteger majorVersion;
  NSInteger minorVersion;
  NSInteger patchVersion;
} NSOperatingSystemVersion;

@interface NSProcessInfo : NSObject
@property(class, readonly, strong) NSProcessInfo* processInfo;
@property(readonly, copy) NSDictionary<NSString*, NSString*>* environment;
@property(readonly, copy) NSArray<NSString*>* arguments;
@property(readonly, copy) NSString* operatingSystemVersionString;
@property(readonly) NSOperatingSystemVersion operatingSystemVersion;
@property(readonly) NSUInteger processorCount;
@property(readonly) unsigned long long physicalMemory;
@property(readonly) int processIdentifier;
- (BOOL)isOperatingSystemAtLeastVersion:(NSOperatingSystemVersion)version;
@end

FOUNDATION_EXPORT void NSLog(NSString* format, ...);
FOUNDATION_EXPORT Class _Nullable NSClassFromString(NSString* aClassName);
FOUNDATION_EXPORT NSString* NSStringFromClass(Class aClass);
FOUNDATION_EXPORT SEL NSSelectorFromString(NSString* aSelectorName);
FOUNDATION_EXPORT NSString* NSStringFromSelector(SEL aSelector);
FOUNDATION_EXPORT NSString* const NSLocalizedDescriptionKey;
